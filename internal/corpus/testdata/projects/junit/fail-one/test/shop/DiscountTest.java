package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

class DiscountTest {
    @Test
    void givesTenPercentOff() {
        Cart cart = new Cart(Map.of("apple", 5)).add("apple", 4);
        assertEquals(180, cart.total(Map.of("apple", 50L)), "four apples at 50 with 10% off");
    }
}
