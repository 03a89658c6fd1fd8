package rtbox.core.toolkit;

import rtbox.core.RunSchema;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import rtbox.api.RtboxException;

/**
 * Reads a workload's or probe's string parameters with errors that name the key and
 * the bad value: whole numbers, byte sizes (512, 4k, 1M), durations (8ms, 2s) and
 * choices. Values given on the command line override defaults (for example from
 * Config Admin).
 */
public final class Parameters {
    private final String owner;
    private final Map<String, String> values;

    /** {@code owner} names what the parameters are for in messages ("pipe"). */
    public Parameters(String owner, Map<String, ?> defaults, Map<String, String> given) {
        this.owner = owner;
        this.values = new LinkedHashMap<>();
        if (defaults != null) {
            defaults.forEach((k, v) -> {
                if (v != null && !v.toString().isBlank()) {
                    values.put(k, v.toString());
                }
            });
        }
        if (given != null) {
            values.putAll(given);
        }
    }

    public Map<String, String> asMap() {
        return java.util.Collections.unmodifiableMap(values);
    }

    /** Fails on any given key not in {@code known}, naming the known ones. */
    public Parameters only(Map<String, String> given, Collection<String> known) throws RtboxException {
        Set<String> bad = new TreeSet<>(given.keySet());
        bad.removeAll(known);
        if (!bad.isEmpty()) {
            throw new RtboxException(bad.iterator().next(), owner + ": unknown parameter" + (bad.size() > 1 ? "s " : " ")
                    + String.join(", ", bad) + ": known are " + String.join(", ", new TreeSet<>(known)));
        }
        return this;
    }

    public String string(String key, String fallback) {
        String v = values.get(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    public long integer(String key, long fallback, long min, long max) throws RtboxException {
        String v = values.get(key);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new RtboxException(key, owner + ": " + key + " '" + v + "' is not a whole number");
        }
        return range(key, n, v, min, max);
    }

    /** A size in bytes: 512, 4k, 64K, 1m, 1M (binary units). */
    public long bytes(String key, long fallback, long min, long max) throws RtboxException {
        String v = values.get(key);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        String t = v.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        if (t.endsWith("k")) {
            unit = 1024;
        } else if (t.endsWith("m")) {
            unit = 1024 * 1024;
        } else if (t.endsWith("g")) {
            unit = 1024L * 1024 * 1024;
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        long n;
        try {
            n = Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new RtboxException(key, owner + ": " + key + " '" + v + "' is not a size such as 512, 4k or 1M");
        }
        return range(key, n, v, min, max);
    }

    /**
     * A duration in nanoseconds in rtbox's one time grammar ({@link RunSchema#nanos}: 500us,
     * 8ms, 2s, 1m, 1h, 1d); no suffix means {@code defaultUnit}.
     */
    public long nanos(String key, long fallback, String defaultUnit) throws RtboxException {
        String v = values.get(key);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return RunSchema.nanos(key, v, defaultUnit);
        } catch (RtboxException e) {
            throw new RtboxException(key, owner + ": " + e.getMessage());
        }
    }

    public String choice(String key, String fallback, String... allowed) throws RtboxException {
        String v = string(key, fallback).toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(v)) {
                return a;
            }
        }
        throw new RtboxException(key, owner + ": " + key + " '" + v + "' is not one of " + String.join(", ", allowed));
    }

    private long range(String key, long n, String v, long min, long max) throws RtboxException {
        if (n < min || n > max) {
            throw new RtboxException(key, owner + ": " + key + " " + v + " is out of range: use " + min + " to " + max);
        }
        return n;
    }
}
