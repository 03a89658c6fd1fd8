package rtbox.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import rtbox.api.SchedPolicy;
import rtbox.api.result.Spike;

/**
 * Recognises RT throttling in a series of spikes. With sched_rt_runtime_us below
 * sched_rt_period_us, the kernel stops a CPU-bound SCHED_FIFO/RR task for
 * (period - runtime) once every period: 50 ms once a second at the default 950000 of
 * 1000000. Seed 000's author measured exactly that as a 51 ms "jitter" of a FIFO 99
 * busy loop. Spikes are labelled {@link #CAUSE} only when all of these hold: the
 * measuring thread ran at an RT policy, throttling was on, the spike lasted about
 * period - runtime, and such spikes recur about once per period (consecutive ones
 * are a whole number of periods apart), or the run was too short to see a second.
 */
public final class RtThrottling {
    public static final String CAUSE = rtbox.api.result.SpikeCause.RT_THROTTLING.label();
    /** A stall counts from half the throttled time up to this multiple of it plus {@link #LENGTH_SLACK_NS}. */
    static final double MAX_LENGTH_FACTOR = 1.5;
    static final long LENGTH_SLACK_NS = 2_000_000;
    /** Consecutive stalls may be off a whole number of periods by this fraction of a period. */
    static final double SPACING_TOLERANCE = 0.15;

    private RtThrottling() {
    }

    /**
     * Reads a /proc or /sys file whole, trimmed.
     *
     * @deprecated use {@link rtbox.os.Procfs#read(String)}, rtbox's one reader of /proc
     */
    @Deprecated
    public static String readProc(String path) throws IOException {
        return rtbox.os.Procfs.read(path);
    }

    /** The two kernel settings. {@code runtimeUs} -1 means throttling is off. */
    public record Settings(long runtimeUs, long periodUs) {
        /** Whether RT tasks are throttled: a runtime that is not -1 and below the period. */
        public boolean on() {
            return runtimeUs >= 0 && periodUs > 0 && runtimeUs < periodUs;
        }

        /** How long a throttled task is stopped each period, in nanoseconds. */
        public long stallNs() {
            return (periodUs - runtimeUs) * 1000;
        }

        public String describe() {
            if (!on()) {
                return "sched_rt_runtime_us " + runtimeUs + ", sched_rt_period_us " + periodUs + ": throttling off";
            }
            return "sched_rt_runtime_us " + runtimeUs + " of sched_rt_period_us " + periodUs + ": an RT task is stopped "
                    + stallNs() / 1_000_000.0 + " ms every " + periodUs / 1000.0 + " ms (write -1 to "
                    + "/proc/sys/kernel/sched_rt_runtime_us to turn throttling off)";
        }

        /**
         * Reads /proc/sys/kernel/sched_rt_{runtime,period}_us; null when they cannot be read.
         * With RT group scheduling (cgroup v1 cpu.rt_runtime_us), tasks of the root group are
         * also held to the root group's runtime: the smaller of the two is what throttles
         * (seen here: root group 900000 under a global 950000 gave 100 ms stalls, not 50).
         */
        public static Settings read() {
            try {
                long runtime = Long.parseLong(rtbox.os.Procfs.kernel("sched_rt_runtime_us"));
                long period = Long.parseLong(rtbox.os.Procfs.kernel("sched_rt_period_us"));
                long group = rootGroupRuntime(period);
                if (group >= 0 && (runtime < 0 || group < runtime)) {
                    runtime = group;
                }
                return new Settings(runtime, period);
            } catch (IOException | NumberFormatException e) {
                return null;
            }
        }

        /** The root cgroup's RT runtime when it has the same period, else -1 (no limit of its own). */
        static long rootGroupRuntime(long period) {
            for (String dir : new String[] {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
                try {
                    long r = Long.parseLong(rtbox.os.Procfs.read(dir + "/cpu.rt_runtime_us"));
                    long p = Long.parseLong(rtbox.os.Procfs.read(dir + "/cpu.rt_period_us"));
                    return p == period ? r : -1;
                } catch (IOException | NumberFormatException e) {
                    // no RT group scheduling here
                }
            }
            return -1;
        }
    }

    /**
     * Labels the spikes that are RT throttling, leaving the others as they were.
     *
     * @param spikes one thread's spikes in time order ({@code offsetNs} = end of the stall)
     * @param policy the policy the thread measured at
     * @param settings the throttling settings during the run, or null if unknown
     * @param runNs how long the run measured
     */
    public static List<Spike> label(List<Spike> spikes, SchedPolicy policy, Settings settings, long runNs) {
        boolean[] hit = matches(spikes, policy, settings, runNs);
        List<Spike> out = new ArrayList<>(spikes.size());
        for (int i = 0; i < spikes.size(); i++) {
            Spike s = spikes.get(i);
            out.add(hit[i] ? labelled(s, settings) : s);
        }
        return out;
    }

    /** Which of the spikes are RT throttling (see the class comment for the rule). */
    public static boolean[] matches(List<Spike> spikes, SchedPolicy policy, Settings settings, long runNs) {
        boolean[] hit = new boolean[spikes.size()];
        if (policy == null || !policy.isRealtime() || settings == null || !settings.on()) {
            return hit;
        }
        long stall = settings.stallNs();
        long periodNs = settings.periodUs() * 1000;
        long lo = stall / 2;
        long hi = (long) (stall * MAX_LENGTH_FACTOR) + LENGTH_SLACK_NS;
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < spikes.size(); i++) {
            long l = spikes.get(i).latencyNs();
            if (l >= lo && l <= hi) {
                candidates.add(i);
            }
        }
        if (candidates.isEmpty()) {
            return hit;
        }
        if (candidates.size() == 1) {
            // One stall of the throttled length is evidence enough only if the run was
            // too short to show a second one.
            if (runNs < 2 * periodNs) {
                hit[candidates.get(0)] = true;
            }
            return hit;
        }
        // Throttling stops the task at most once per period: more stalls than that are something else.
        if (runNs > 0 && candidates.size() > runNs / periodNs + 2) {
            return hit;
        }
        // Each candidate needs its previous or next candidate a whole number (1..3) of periods away.
        for (int c = 0; c < candidates.size(); c++) {
            long at = spikes.get(candidates.get(c)).offsetNs();
            boolean spaced = c > 0 && periodic(at - spikes.get(candidates.get(c - 1)).offsetNs(), periodNs)
                    || c + 1 < candidates.size() && periodic(spikes.get(candidates.get(c + 1)).offsetNs() - at, periodNs);
            hit[candidates.get(c)] = spaced;
        }
        return hit;
    }

    private static boolean periodic(long gap, long periodNs) {
        long k = Math.round(gap / (double) periodNs);
        return k >= 1 && k <= 3 && Math.abs(gap - k * periodNs) <= SPACING_TOLERANCE * periodNs;
    }

    /** The spike with the RT throttling cause and the settings as evidence. */
    public static Spike labelled(Spike s, Settings settings) {
        return s.withCause(CAUSE, String.format(java.util.Locale.ROOT, "stalled %.1f ms, about period - runtime = %.1f ms, recurring "
                + "about once per period at an RT policy: %s", s.latencyNs() / 1e6, settings.stallNs() / 1e6,
                settings.describe()));
    }
}
