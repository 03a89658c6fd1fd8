package rtbox.cli.internal;

import rtbox.api.RtboxException;

/** cyclictest's time spelling: a number with an optional s, m, h or d suffix (seconds if none); also ms. */
final class Durations {
    private Durations() {
    }

    static long parseNanos(String what, String text) throws RtboxException {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        long unit = 1_000_000_000L;
        String number = t;
        if (t.endsWith("ms")) {
            unit = 1_000_000L;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            number = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            unit = 60_000_000_000L;
            number = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            unit = 3_600_000_000_000L;
            number = t.substring(0, t.length() - 1);
        } else if (t.endsWith("d")) {
            unit = 86_400_000_000_000L;
            number = t.substring(0, t.length() - 1);
        }
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new RtboxException(what, what + " '" + text + "' is not a time such as 10s, 5m, 1h or 1d");
        }
        if (value < 0 || Double.isNaN(value)) {
            throw new RtboxException(what, what + " '" + text + "' is negative");
        }
        return Math.round(value * unit);
    }
}
