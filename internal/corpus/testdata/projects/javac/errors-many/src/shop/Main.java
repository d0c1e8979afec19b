package shop;

import java.util.Map;

public class Main {
    public static void main(String[] args) {
        Cart cart = new Cart(Map.of("apple", 3));
        cart.add("apple", "2");
        int total = cart.total(Map.of("apple", Price.parse("0.50")));
        String label = Discount.of(10).describe();
        System.out.println(label + total);
    }
}
