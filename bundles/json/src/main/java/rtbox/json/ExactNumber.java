package rtbox.json;

import java.math.BigDecimal;

/**
 * A JSON number as written, converted only when read (as Gson's own parser keeps them):
 * exact through {@link #decimal()}, and a whole number of up to 18 digits without a detour
 * through BigDecimal, which is what a histogram's thousands of counts are.
 *
 * <p>The narrowing conversions ({@link #longValue()}, {@link #intValue()}, {@link #shortValue()},
 * {@link #byteValue()}) are exact or refuse: {@code 2.5} or {@code 1e40} asked for as a long is a
 * {@link NumberFormatException}, never 2 or {@code Long.MAX_VALUE} ({@code Number}'s contract
 * allows truncation; rtbox's rule is no silent rounding, issue 33). They are what Gson's {@code
 * getAsLong()}/{@code getAsInt()} call on a strict tree, and Gson itself throws that exception
 * for {@code getAsInt()} on {@code "x"}. Its message has no path: the project reads whole
 * numbers with {@link JsonFields#whole(com.google.gson.JsonElement, String, long, long)}, which
 * names it; this is the floor under a reader that does not.
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
    public long longValue() {
        Long w = whole();
        return w != null ? w : exact(Long.MIN_VALUE, Long.MAX_VALUE, "64");
    }

    @Override
    public int intValue() {
        return (int) narrow(Integer.MIN_VALUE, Integer.MAX_VALUE, "32");
    }

    @Override
    public short shortValue() {
        return (short) narrow(Short.MIN_VALUE, Short.MAX_VALUE, "16");
    }

    @Override
    public byte byteValue() {
        return (byte) narrow(Byte.MIN_VALUE, Byte.MAX_VALUE, "8");
    }

    private long narrow(long min, long max, String bits) {
        Long w = whole();
        if (w != null) {
            if (w < min || w > max) {
                throw outOfRange(bits);
            }
            return w;
        }
        return exact(min, max, bits);
    }

    /** The value through BigDecimal: {@code 2.0} and {@code 1e2} are whole, {@code 2.5} is not. */
    private long exact(long min, long max, String bits) {
        BigDecimal d = decimal();
        if (d.signum() != 0 && d.stripTrailingZeros().scale() > 0) {
            throw new NumberFormatException(shown() + " is not a whole number");
        }
        if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw outOfRange(bits);
        }
        return d.longValueExact();
    }

    private NumberFormatException outOfRange(String bits) {
        return new NumberFormatException(shown() + " is out of range for a whole number of " + bits + " bits");
    }

    private String shown() {
        return text.length() > 40 ? text.substring(0, 37) + "..." : text;
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
