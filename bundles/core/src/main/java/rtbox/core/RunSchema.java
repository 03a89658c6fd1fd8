package rtbox.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.RtboxException;

/**
 * The run request's fields once, for every front end that describes a run: {@code rtbox run}'s
 * options, a plan's cells, the MQTT {@code run} verb and {@code rtbox ctl run}. Each field has
 * one name, its aliases (the names users already type: cyclictest's options, the plan's
 * older keys), its unit, default and range, and each value one grammar: times ({@link
 * #nanos}: {@code 500us}, {@code 8ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d}; no
 * unit means seconds), CPU lists ({@link #cpus}: {@code 0-3,6}) and policies
 * ({@link rtbox.api.SchedPolicy#parse}).
 */
public final class RunSchema {
    private RunSchema() {
    }

    /**
     * A threshold: its one name in JSON (the plan cell's, which is the MQTT {@code run} body's
     * and the control room's: {@link RunRequests}), its command-line option, its unit, default
     * (-1: none) and range; its synonyms (the graph probe's words, from seed 004's table) and the
     * names that are deprecated (the MQTT {@code run} body's before one shape: accepted with a
     * note for one release, then refused).
     */
    public enum Threshold {
        MAX_LATENCY("max_us", "--max-latency", "us", -1, List.of("delay_max_us"), List.of("max_latency_us")),
        MAX_P99("p99_us", "--max-p99", "us", -1, List.of(), List.of("max_p99_us")),
        MAX_P999("p999_us", "--max-p999", "us", -1, List.of(), List.of("max_p999_us")),
        MAX_MISSED("missed_deadlines", "--max-missed", "deadlines", -1, List.of("xruns"), List.of("max_missed")),
        MAX_OVERFLOWS("overflows", "--max-overflows", "samples", -1, List.of(), List.of("max_overflows")),
        JVM_STALL_BUDGET("jvm_stall_us", "--jvm-stall-budget", "us", 1000, List.of(), List.of("jvm_stall_budget_us")),
        /**
         * The probabilistic threshold (since 2.3): the pWCET estimate's latency exceeded in an hour
         * with the probability {@link #PWCET_PER_HOUR} (default 1e-9), upper confidence bound.
         */
        PWCET("pwcet_us", "--max-pwcet", "us", -1, List.of(), List.of());

        private final String key;
        private final String option;
        private final String unit;
        private final long fallback;
        private final List<String> synonyms;
        private final List<String> deprecated;

        Threshold(String key, String option, String unit, long fallback, List<String> synonyms,
                List<String> deprecated) {
            this.key = key;
            this.option = option;
            this.unit = unit;
            this.fallback = fallback;
            this.synonyms = synonyms;
            this.deprecated = deprecated;
        }

        /** The name in JSON (plans, MQTT) and in reports. */
        public String key() {
            return key;
        }

        /** The command-line option ({@code rtbox run}, {@code rtbox ctl run}). */
        public String option() {
            return option;
        }

        public String unit() {
            return unit;
        }

        /** The value when not given: -1 means no such threshold. */
        public long fallback() {
            return fallback;
        }

        /** Other names accepted in JSON for this threshold: its synonyms and its deprecated names. */
        public List<String> aliases() {
            List<String> l = new ArrayList<>(synonyms);
            l.addAll(deprecated);
            return l;
        }

        /** Names that mean this threshold for good (the graph probe's {@code delay_max_us}, {@code xruns}). @since 2.1 */
        public List<String> synonyms() {
            return synonyms;
        }

        /** Names accepted for one release with a note, then refused. @since 2.1 */
        public List<String> deprecated() {
            return deprecated;
        }

        /** The threshold called {@code name} (its key or an alias), or null. */
        public static Threshold named(String name) {
            for (Threshold t : values()) {
                if (t.key.equals(name) || t.synonyms.contains(name) || t.deprecated.contains(name)) {
                    return t;
                }
            }
            return null;
        }

        /** Every name accepted in JSON, keys first. */
        public static List<String> names() {
            List<String> l = new ArrayList<>();
            for (Threshold t : values()) {
                l.add(t.key);
            }
            for (Threshold t : values()) {
                l.addAll(t.aliases());
            }
            return l;
        }

        /** Checks a value: -1 (none) up to any count; the budget also -1 (no budget). */
        public long check(String field, long value) throws RtboxException {
            if (value < -1) {
                throw new RtboxException(field, field + " " + value + " is out of range: use 0 or more (-1: none)");
            }
            return value;
        }
    }

    /** The thresholds from values by threshold; a missing one is its {@link Threshold#fallback()}. */
    public static Thresholds thresholds(Map<Threshold, Long> given) {
        return thresholds(given, null);
    }

    /**
     * The thresholds with the probability per hour of {@code pwcet_us} (null: {@link
     * Thresholds#DEFAULT_PWCET_PER_HOUR}). @since 2.3
     */
    public static Thresholds thresholds(Map<Threshold, Long> given, Double pwcetPerHour) {
        return new Thresholds(get(given, Threshold.MAX_LATENCY), get(given, Threshold.MAX_P99),
                get(given, Threshold.MAX_P999), get(given, Threshold.MAX_OVERFLOWS), get(given, Threshold.MAX_MISSED),
                get(given, Threshold.JVM_STALL_BUDGET), get(given, Threshold.PWCET),
                pwcetPerHour == null ? Thresholds.DEFAULT_PWCET_PER_HOUR : pwcetPerHour);
    }

    /**
     * The probability per hour of operation a {@code pwcet_us} threshold is stated at, in a
     * request's thresholds beside it ({@code "pwcet_per_hour": 1e-9}; command line
     * {@code --pwcet-per-hour}): more than 0 and less than 1. @since 2.3
     */
    public static final String PWCET_PER_HOUR = "pwcet_per_hour";

    /** Checks a per-hour probability. @since 2.3 */
    public static double pwcetPerHour(String field, double p) throws RtboxException {
        if (!(p > 0 && p < 1)) {
            throw new RtboxException(field, field + " " + p + " is not a probability: give more than 0 and less than 1,"
                    + " e.g. 1e-9");
        }
        return p;
    }

    private static long get(Map<Threshold, Long> given, Threshold t) {
        Long v = given.get(t);
        return v == null ? t.fallback() : v;
    }

    /** Run time, warm-up: a {@link #nanos} time, 0 or more. */
    public static final String DURATION = "duration", WARMUP = "warmup";
    /** The warm-up when none is given. */
    public static final long DEFAULT_WARMUP_NS = 1_000_000_000L;
    /** Wake-up interval in us: 1 to 10 s, default 1000. */
    public static final long DEFAULT_INTERVAL_US = 1000, MIN_INTERVAL_US = 1, MAX_INTERVAL_US = 10_000_000;
    /** Histogram size in 1 us buckets: 1 to 1,000,000, default 10,000. */
    public static final int DEFAULT_HISTOGRAM_US = 10_000, MAX_HISTOGRAM_US = 1_000_000;
    /** Priority of the measuring threads: 0 to 99. */
    public static final int MAX_PRIORITY = 99;
    /** The highest CPU number accepted in a CPU list. */
    public static final int MAX_CPU = 4095;

    /**
     * A time in nanoseconds, the one grammar of every time rtbox reads: a number (fractions
     * allowed) with {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h} or
     * {@code d}; without a unit, {@code defaultUnit}. {@code field} names the value in the error.
     */
    public static long nanos(String field, String text, String defaultUnit) throws RtboxException {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("-")) {
            throw new RtboxException(field, field + " '" + text + "' is negative: give 0 or more");
        }
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        String unit = i == t.length() ? defaultUnit : t.substring(i).trim();
        double mult;
        switch (unit) {
            case "ns": mult = 1; break;
            case "us": mult = 1e3; break;
            case "ms": mult = 1e6; break;
            case "s": mult = 1e9; break;
            case "m": mult = 60e9; break;
            case "h": mult = 3600e9; break;
            case "d": mult = 86400e9; break;
            default:
                throw new RtboxException(field, field + " '" + text + "' is not a time such as 500ms, 10s, 5m, 1h or 1d"
                        + " (units: ns, us, ms, s, m, h, d)");
        }
        try {
            double n = Double.parseDouble(t.substring(0, i));
            if (!Double.isFinite(n) || n * mult > Long.MAX_VALUE) {
                throw new NumberFormatException();
            }
            return Math.round(n * mult);
        } catch (NumberFormatException e) {
            throw new RtboxException(field, field + " '" + text + "' is not a time such as 500ms, 10s, 5m, 1h or 1d");
        }
    }

    /** A run time or warm-up: {@link #nanos} with seconds as the default unit. */
    public static long duration(String field, String text) throws RtboxException {
        return nanos(field, text, "s");
    }

    /**
     * A CPU list, the kernel's spelling ({@code 0-3,6}) as {@code rtbox run -a}, a plan's
     * {@code cpus} and the MQTT {@code cpus} take it: the CPUs in the order given, at least one.
     */
    public static int[] cpus(String field, String text) throws RtboxException {
        int[] cpus;
        try {
            cpus = rtbox.os.Sched.parseCpuList(text == null ? "" : text); // the kernel's format, parsed once
        } catch (IllegalArgumentException e) {
            cpus = null;
        }
        if (cpus != null) {
            for (int c : cpus) {
                if (c < 0 || c > MAX_CPU) {
                    cpus = null;
                    break;
                }
            }
        }
        if (cpus == null) {
            throw new RtboxException(field, field + " '" + text + "' is not a CPU list such as 1 or 0-3,6 (CPUs 0 to "
                    + MAX_CPU + ")");
        }
        return distinctCpus(field, cpus);
    }

    /**
     * {@code cpus} when no CPU is named twice; else an error naming the CPU. A CPU given twice
     * would get two measuring threads (and two histograms) on one CPU, each delaying the other.
     */
    public static int[] distinctCpus(String field, int[] cpus) throws RtboxException {
        java.util.BitSet seen = new java.util.BitSet();
        for (int c : cpus) {
            if (c >= 0 && seen.get(c)) {
                throw new RtboxException(field, field + ": CPU " + c + " is given twice: name each CPU once");
            }
            if (c >= 0) {
                seen.set(c);
            }
        }
        return cpus;
    }
}
