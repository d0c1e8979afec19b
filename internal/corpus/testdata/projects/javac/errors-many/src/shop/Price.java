package shop;

/** Prices in cents. */
public final class Price {
    private Price() {}

    /** Parses "3.50" into 350. */
    public static long parse(String s) {
        String[] parts = s.trim().split("\\.", 2);
        return Long.parseLong(parts[0]) * 100 + Long.parseLong(cents);
    }
}
