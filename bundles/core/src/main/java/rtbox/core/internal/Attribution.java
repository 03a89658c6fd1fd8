package rtbox.core.internal;

import java.util.ArrayList;
import java.util.List;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RtThrottling;

/**
 * Labels each spike with its likely cause, from the evidence the run collected.
 * A spike is the interval from a deadline to the late wake-up; it is a "JVM pause"
 * when a safepoint or GC of this JVM overlaps that interval, "seen from another CPU"
 * when the hiccup monitor stalled at the same time without a safepoint (a stall of
 * the whole machine, such as a hypervisor's), and "unexplained" otherwise (the
 * kernel or the hardware). Before all that, stalls that are RT throttling are named so
 * ({@link RtThrottling}).
 */
final class Attribution {
    static final String JVM = "JVM pause";
    static final String MACHINE = "machine-wide stall";
    static final String UNEXPLAINED = "unexplained";
    static final String WORKLOAD = "workload";
    /** Clock reads and wake-up paths blur window edges by a few microseconds. */
    private static final long SLACK_NS = 50_000;
    /** Spikes are reported from this multiple of the thread's median. */
    static final long SPIKE_FACTOR = 10;
    static final long MIN_SPIKE_NS = 20_000;

    private Attribution() {
    }

    static List<Spike> label(ThreadResult thread, List<JvmStall> jvm, List<JvmStall> hiccups) {
        return label(thread, jvm, hiccups, null, 0, List.of());
    }

    /**
     * As {@link #label(ThreadResult, List, List)}, but first names the spikes that are RT
     * throttling (the thread at an RT policy, stalls of period - runtime once a period).
     * Those take precedence: a throttled thread also delays any safepoint it is part of.
     */
    static List<Spike> label(ThreadResult thread, List<JvmStall> jvm, List<JvmStall> hiccups,
            RtThrottling.Settings throttling, long runNs) {
        return label(thread, jvm, hiccups, throttling, runNs, List.of());
    }

    /**
     * As above, and a spike inside a window in which a workload said it was busy
     * ({@link rtbox.core.BusyWindows}) is labelled "workload" with that workload's name.
     * A JVM pause still comes first: it would delay the probe whatever the load did.
     */
    static List<Spike> label(ThreadResult thread, List<JvmStall> jvm, List<JvmStall> hiccups,
            RtThrottling.Settings throttling, long runNs, List<JvmStall> busy) {
        SchedPolicy policy = null;
        try {
            policy = SchedPolicy.parse(thread.policy());
        } catch (RtboxException e) {
            // unknown policy name: no throttling label
        }
        List<Spike> spikes = thread.spikes();
        boolean[] throttled = RtThrottling.matches(spikes, policy, throttling, runNs);
        long threshold = Math.max(MIN_SPIKE_NS, thread.latency().p50Ns() * SPIKE_FACTOR);
        List<Spike> labelled = new ArrayList<>();
        for (int i = 0; i < spikes.size(); i++) {
            Spike s = spikes.get(i);
            if (s.latencyNs() < threshold) {
                continue;
            }
            if (throttled[i]) {
                labelled.add(RtThrottling.labelled(s, throttling));
                continue;
            }
            long from = s.offsetNs() - s.latencyNs();
            long to = s.offsetNs();
            JvmStall pause = overlapping(jvm, from, to);
            if (pause != null) {
                labelled.add(s.withCause(JVM, pause.kind() + " " + pause.detail() + ", "
                        + pause.durationNs() / 1000 + " us"));
                continue;
            }
            JvmStall load = overlapping(busy, from, to);
            if (load != null) {
                labelled.add(s.withCause(WORKLOAD, load.detail() + " was busy for " + load.durationNs() / 1000
                        + " us from " + String.format(java.util.Locale.ROOT, "%.6f", load.offsetNs() / 1e9) + " s"));
                continue;
            }
            JvmStall hiccup = overlapping(hiccups, from, to);
            if (hiccup != null) {
                labelled.add(s.withCause(MACHINE, "the JVM monitor thread on another CPU stalled too ("
                        + hiccup.durationNs() / 1000 + " us) with no safepoint or GC: not this JVM"));
                continue;
            }
            labelled.add(s.withCause(UNEXPLAINED, "no JVM pause, no load event: the kernel or the hardware"));
        }
        return labelled;
    }

    static JvmStall overlapping(List<JvmStall> stalls, long from, long to) {
        for (JvmStall st : stalls) {
            long a = st.offsetNs() - SLACK_NS;
            long b = st.offsetNs() + st.durationNs() + SLACK_NS;
            if (a <= to && b >= from) {
                return st;
            }
        }
        return null;
    }
}
