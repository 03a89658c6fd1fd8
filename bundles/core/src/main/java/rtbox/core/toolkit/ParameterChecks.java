package rtbox.core.toolkit;

import rtbox.core.RunSchema;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.os.Sched;

/**
 * The checks every probe makes of the parameters they all share, so that the same
 * bad value gets the same message whatever the probe (rt-tests' rule: one option,
 * one meaning). A probe checks its own options, then calls {@link #common}.
 */
public final class ParameterChecks {
    /** Largest histogram: a million 1 us buckets (8 MB a thread). */
    public static final int MAX_HISTOGRAM_US = 1_000_000;

    /** Longest run: a week (a soak); "150000000m" was a 285-year run. */
    public static final long MAX_DURATION_NS = 7L * 86_400 * 1_000_000_000;
    /** The share of the JVM's heap a run's histograms may take (8 bytes a bucket, one histogram a CPU). */
    public static final int HEAP_SHARE_DIVISOR = 4;

    private ParameterChecks() {
    }

    /**
     * For a probe that neither stops at a break (cyclictest's -b) nor keeps samples to print
     * (-v): refuses them by name rather than ignoring them. @since 1.5
     */
    public static void noBreakNorSamples(String probe, RunParameters p) throws RtboxException {
        if (p.breakUs > 0) {
            throw new RtboxException("breaktrace", "-b/--breaktrace is not supported by the " + probe + " probe: "
                    + "it is cyclictest's, of the timer probe; use --max-latency for a verdict");
        }
        if (p.printSamples) {
            throw new RtboxException("verbose", "-v/--verbose is not supported by the " + probe + " probe: it is "
                    + "cyclictest's, of the timer probe; --hdrlog FILE keeps the histogram over time");
        }
    }

    /** Priority for the policy, times and counts not negative, histogram size, CPUs that exist, ISO present. */
    public static void common(RunParameters p) throws RtboxException {
        if (p.priority < p.policy.minPriority || p.priority > p.policy.maxPriority) {
            throw new RtboxException("priority", "priority " + p.priority + " is out of range for SCHED_"
                    + p.policy + ": use " + p.policy.minPriority + " to " + p.policy.maxPriority);
        }
        if (p.durationNs < 0) {
            throw new RtboxException("duration", "duration " + p.durationNs / 1e9 + " s is negative");
        }
        if (p.durationNs > MAX_DURATION_NS) {
            throw new RtboxException("duration", "duration " + Math.round(p.durationNs / 86_400e9) + " days is over the "
                    + "longest run of " + MAX_DURATION_NS / 86_400_000_000_000L + " days");
        }
        if (p.loops < 0) {
            throw new RtboxException("loops", "loop count " + p.loops + " is negative");
        }
        if (p.warmupNs < 0) {
            throw new RtboxException("warmup", "warm-up " + p.warmupNs / 1e9 + " s is negative");
        }
        if (p.histogramLimitUs < 1 || p.histogramLimitUs > MAX_HISTOGRAM_US) {
            throw new RtboxException("histogram", "histogram size " + p.histogramLimitUs
                    + " us is out of range: use 1 to " + MAX_HISTOGRAM_US);
        }
        if (p.breakUs < 0) {
            throw new RtboxException("breaktrace", "break limit " + p.breakUs + " us is negative: give the latency "
                    + "in us at which to stop, or leave -b out");
        }
        if (p.cpus.length == 0) {
            throw new RtboxException("cpu", "no CPU selected");
        }
        RunSchema.distinctCpus("cpu", p.cpus);
        long histogramBytes = 8L * p.histogramLimitUs * p.cpus.length;
        long budget = Runtime.getRuntime().maxMemory() / HEAP_SHARE_DIVISOR;
        if (histogramBytes > budget) {
            throw new RtboxException("histogram", "the run's histograms need " + histogramBytes / 1024 + " KiB"
                    + " (histogram size " + p.histogramLimitUs + " us x 8 bytes x " + p.cpus.length + " CPUs), over"
                    + " the budget of " + budget / 1024 + " KiB (a quarter of the JVM's heap): give a smaller"
                    + " histogram or fewer CPUs");
        }
        int cpus = Sched.configuredCpus();
        for (int cpu : p.cpus) {
            if (cpu < 0 || cpu >= cpus) {
                throw new RtboxException("cpu", "CPU " + cpu + " does not exist: this machine has CPUs 0 to "
                        + (cpus - 1));
            }
        }
        if (p.policy == SchedPolicy.ISO && !Sched.accepts(SchedPolicy.ISO)) {
            throw new RtboxException("policy", "SCHED_ISO is not available: this kernel refuses policy 4 "
                    + "(SCHED_ISO exists only in -ck kernels); use fifo or rr");
        }
    }
}
