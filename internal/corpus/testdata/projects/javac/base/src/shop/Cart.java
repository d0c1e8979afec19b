package shop;

import java.util.HashMap;
import java.util.Map;

/** A shopping cart. */
public class Cart {
    /** Thrown when an item is out of stock. */
    public static class OutOfStockException extends RuntimeException {
        public OutOfStockException(String item) {
            super("out of stock: " + item);
        }
    }

    private final Map<String, Integer> stock;
    private final Map<String, Integer> items = new HashMap<>();

    public Cart(Map<String, Integer> stock) {
        this.stock = new HashMap<>(stock);
    }

    public Cart add(String item, int n) {
        int left = stock.getOrDefault(item, 0);
        if (left < n) {
            throw new OutOfStockException(item);
        }
        stock.put(item, left - n);
        items.merge(item, n, Integer::sum);
        return this;
    }

    public Map<String, Integer> items() {
        return items;
    }

    public long total(Map<String, Long> prices) {
        long sum = 0;
        for (Map.Entry<String, Integer> e : items.entrySet()) {
            sum += prices.get(e.getKey()) * e.getValue();
        }
        return sum;
    }

    /** @deprecated use items().size() */
    @Deprecated
    public int count() {
        return items.values().stream().mapToInt(Integer::intValue).sum();
    }
}
