package rtbox.control.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * The JSON Canonicalization Scheme (RFC 8785) of a Gson tree: the bytes an acceptance
 * record's signature and SHA-256 are taken over. Object members sorted by their names'
 * UTF-16 code units, no white space, strings with only the escapes JSON requires
 * (quote, backslash, b, f, n, r, t; other characters below U+0020 as backslash-u00xx),
 * numbers as ECMAScript's {@code Number.prototype.toString} writes the IEEE 754 double
 * (shortest digits that read back the same double; 1e+21, 0.000001,
 * 1e-7). UTF-8 out. Anyone's RFC 8785 implementation gives the same bytes.
 */
final class Canonical {
    private Canonical() {
    }

    static byte[] bytes(JsonElement e) {
        return text(e).getBytes(StandardCharsets.UTF_8);
    }

    static String text(JsonElement e) {
        StringBuilder b = new StringBuilder();
        write(b, e);
        return b.toString();
    }

    private static void write(StringBuilder b, JsonElement e) {
        if (e == null || e.isJsonNull()) {
            b.append("null");
        } else if (e.isJsonObject()) {
            JsonObject o = e.getAsJsonObject();
            List<String> names = new ArrayList<>(o.keySet());
            names.sort(String::compareTo); // String.compareTo compares UTF-16 code units, as RFC 8785 sorts
            b.append('{');
            boolean first = true;
            for (String n : names) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, n);
                b.append(':');
                write(b, o.get(n));
            }
            b.append('}');
        } else if (e.isJsonArray()) {
            b.append('[');
            boolean first = true;
            for (JsonElement x : e.getAsJsonArray()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, x);
            }
            b.append(']');
        } else {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isBoolean()) {
                b.append(p.getAsBoolean());
            } else if (p.isNumber()) {
                b.append(number(p.getAsDouble()));
            } else {
                string(b, p.getAsString());
            }
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        throw new IllegalArgumentException("a lone surrogate has no canonical JSON form");
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /** ECMAScript's Number.prototype.toString of a double (RFC 8785 section 3.2.2.3). */
    static String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException(d + " has no JSON form");
        }
        if (d == 0) {
            return "0"; // -0 too
        }
        if (d < 0) {
            return "-" + number(-d);
        }
        // The fewest significant digits that read back as d; rounding the exact value picks the closest such.
        BigDecimal exact = new BigDecimal(d), s = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == d) {
                s = r;
                break;
            }
        }
        s = s.stripTrailingZeros();
        String digits = s.unscaledValue().toString();
        int k = digits.length(), n = k - s.scale();
        if (k <= n && n <= 21) {
            return digits + "0".repeat(n - k);
        }
        if (0 < n && n <= 21) {
            return digits.substring(0, n) + "." + digits.substring(n);
        }
        if (-6 < n && n <= 0) {
            return "0." + "0".repeat(-n) + digits;
        }
        int e = n - 1;
        return digits.charAt(0) + (k == 1 ? "" : "." + digits.substring(1)) + "e" + (e < 0 ? "-" : "+") + Math.abs(e);
    }

    /** For tests and tools: the canonical form of a JSON text. */
    static String of(String json) {
        return text(com.google.gson.JsonParser.parseString(json));
    }
}
