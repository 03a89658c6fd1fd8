package rtbox.api;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parameters every probe understands, with rt-tests' meaning (the same name
 * means the same thing in every probe), plus probe-specific options by name.
 * Immutable; build with {@link #builder()}.
 */
public final class RunParameters {
    /** Wake-up or sample interval in microseconds (cyclictest -i). */
    public final long intervalUs;
    /** Scheduling policy of the measuring threads (--policy). */
    public final SchedPolicy policy;
    /** Static priority of the measuring threads (-p); 0 for non-RT policies. */
    public final int priority;
    /** CPUs to measure on, one measuring thread each (-a / -t / -S). */
    public final int[] cpus;
    /** Measuring time in nanoseconds (-D); 0 when {@link #loops} bounds the run. */
    public final long durationNs;
    /** Number of cycles per thread (-l); 0 when {@link #durationNs} bounds the run. */
    public final long loops;
    /** Time spent running the loop unrecorded before measuring, for the JIT. */
    public final long warmupNs;
    /** Histogram size in microsecond buckets (-h); larger values count as overflows. */
    public final int histogramLimitUs;
    /** Lock memory with mlockall before measuring (-m). */
    public final boolean lockMemory;
    /** Probe-specific options, by name. */
    public final Map<String, String> options;
    /**
     * Stop the run at the first sample over this many microseconds (cyclictest -b,
     * --breaktrace); 0 for no such stop. The sample that broke is counted and reported.
     *
     * @since 1.2
     */
    public final long breakUs;
    /**
     * Keep the latest samples in a ring for another thread to print each one (cyclictest -v):
     * {@link LiveThread#sampleNs}.
     *
     * @since 1.2
     */
    public final boolean printSamples;

    private RunParameters(Builder b) {
        this.intervalUs = b.intervalUs;
        this.policy = b.policy;
        this.priority = b.priority;
        this.cpus = b.cpus.clone();
        this.durationNs = b.durationNs;
        this.loops = b.loops;
        this.warmupNs = b.warmupNs;
        this.histogramLimitUs = b.histogramLimitUs;
        this.lockMemory = b.lockMemory;
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
        this.breakUs = b.breakUs;
        this.printSamples = b.printSamples;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder preset with this object's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.intervalUs = intervalUs;
        b.policy = policy;
        b.priority = priority;
        b.cpus = cpus.clone();
        b.durationNs = durationNs;
        b.loops = loops;
        b.warmupNs = warmupNs;
        b.histogramLimitUs = histogramLimitUs;
        b.lockMemory = lockMemory;
        b.options.putAll(options);
        b.breakUs = breakUs;
        b.printSamples = printSamples;
        return b;
    }

    public String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    @Override
    public String toString() {
        return "interval=" + intervalUs + "us policy=" + policy.lowerName() + " priority=" + priority
                + " cpus=" + Arrays.toString(cpus) + " duration=" + durationNs / 1_000_000 + "ms loops=" + loops
                + " warmup=" + warmupNs / 1_000_000 + "ms histogram=" + histogramLimitUs + "us mlock="
                + lockMemory + (breakUs > 0 ? " break=" + breakUs + "us" : "") + (printSamples ? " verbose" : "")
                + (options.isEmpty() ? "" : " " + options);
    }

    /** Mutable builder with cyclictest's defaults (1000 us, SCHED_OTHER, CPU 0). */
    public static final class Builder {
        private long intervalUs = 1000;
        private SchedPolicy policy = SchedPolicy.OTHER;
        private int priority = 0;
        private int[] cpus = {0};
        private long durationNs = 0;
        private long loops = 0;
        private long warmupNs = 1_000_000_000L;
        private int histogramLimitUs = 10_000;
        private boolean lockMemory = false;
        private final Map<String, String> options = new LinkedHashMap<>();
        private long breakUs = 0;
        private boolean printSamples = false;

        public Builder intervalUs(long v) { this.intervalUs = v; return this; }
        public Builder policy(SchedPolicy v) { this.policy = v; return this; }
        public Builder priority(int v) { this.priority = v; return this; }
        public Builder cpus(int... v) { this.cpus = v.clone(); return this; }
        public Builder durationNs(long v) { this.durationNs = v; return this; }
        public Builder loops(long v) { this.loops = v; return this; }
        public Builder warmupNs(long v) { this.warmupNs = v; return this; }
        public Builder histogramLimitUs(int v) { this.histogramLimitUs = v; return this; }
        public Builder lockMemory(boolean v) { this.lockMemory = v; return this; }
        public Builder option(String name, String value) { this.options.put(name, value); return this; }
        /** @since 1.2 */
        public Builder breakUs(long v) { this.breakUs = v; return this; }
        /** @since 1.2 */
        public Builder printSamples(boolean v) { this.printSamples = v; return this; }

        public RunParameters build() {
            return new RunParameters(this);
        }
    }
}
