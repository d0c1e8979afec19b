package shop;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MoreTest {
    @ParameterizedTest
    @CsvSource({"1.5, 150", "'1,50', 150", "-2.25, -225"})
    void parsesFormats(String s, long want) {
        assertEquals(want, Price.parse(s));
    }

    @Test
    void addsAnUnknownItem() {
        new Cart(Map.of("apple", 1)).add("kiwi", 1);
    }

    @Test
    void totalsTwoPears() {
        Cart cart = new Cart(Map.of("pear", 2)).add("pear", 2);
        assertAll("totals",
                () -> assertEquals(150, cart.total(Map.of("pear", 70L))),
                () -> assertEquals(1, cart.items().size()),
                () -> assertEquals("EUR", "USD"));
    }

    @Test
    void pricesAFig() {
        new Cart(Map.of("fig", 1)).add("fig", 1).total(Map.of());
    }
}
