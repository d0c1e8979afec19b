package shop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class Main {
    public static void main(String[] args) {
        Cart cart = new Cart(Map.of("apple", 3, "pear", 1));
        cart.add("apple", 2);
        try {
            cart.add("pear", 2);
        } catch (Cart.OutOfStockException e) {
            // Noise: an expected exception, printed with its stack trace.
            System.err.print("handled: ");
            e.printStackTrace();
        }
        List raw = new ArrayList(); // an unchecked warning under -Xlint:all
        raw.add(cart.count()); // a deprecation warning
        System.out.println("items: " + raw + ", total: " + cart.total(Map.of("apple", Price.parse("0.50"))));
    }
}
