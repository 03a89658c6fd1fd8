package rtbox.json;

import java.math.BigDecimal;

/**
 * A JSON number as written, converted only when read (as Gson's own parser keeps them):
 * exact through {@link #decimal()}, and a whole number of up to 18 digits without a detour
 * through BigDecimal, which is what a histogram's thousands of counts are.
 */
final class ExactNumber extends Number {
    private static final long serialVersionUID = 1L;
    private final String text;

    ExactNumber(String text) {
        this.text = text;
    }

    /** The value when the literal is a plain whole number that fits a long safely, else null. */
    Long whole() {
        int n = text.length(), i = text.startsWith("-") ? 1 : 0;
        if (n - i == 0 || n - i > 18) {
            return null;
        }
        for (int k = i; k < n; k++) {
            char c = text.charAt(k);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        return Long.parseLong(text);
    }

    BigDecimal decimal() {
        return new BigDecimal(text);
    }

    @Override
    public int intValue() {
        return decimal().intValue();
    }

    @Override
    public long longValue() {
        Long w = whole();
        return w != null ? w : decimal().longValue();
    }

    @Override
    public float floatValue() {
        return Float.parseFloat(text);
    }

    @Override
    public double doubleValue() {
        return Double.parseDouble(text);
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExactNumber && ((ExactNumber) o).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
