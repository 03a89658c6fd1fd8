package rtbox.core.internal;

import rtbox.api.result.SpikeCause;

import java.util.ArrayList;
import java.util.List;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.api.result.Culprit;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RtThrottling;
import rtbox.trace.TraceSession;

/**
 * Labels each spike with its likely cause, from the evidence the run collected.
 * A spike is the interval from a deadline to the late wake-up; it is a "JVM pause"
 * when a safepoint or GC of this JVM overlaps that interval, "seen from another CPU"
 * when the hiccup monitor stalled at the same time without a safepoint (a stall of
 * the whole machine, such as a hypervisor's), and "unexplained" otherwise (the
 * kernel or the hardware). Before all that, stalls that are RT throttling are named so
 * ({@link RtThrottling}).
 *
 * <p>With the kernel's trace ({@link TraceSession}), each spike also gets its culprits:
 * what held the probe's CPU in its window. A spike that something outside this JVM (a
 * thread of another process, a kernel thread, an interrupt) held for at least half its
 * length is "preempted" or "interrupt", not a JVM pause even if a safepoint overlapped,
 * unless the probe woke just as the pause ended (then the probe was the JVM's, and the
 * others only used the CPU it could not); a JVM pause lists only this JVM's threads.
 * Both ways round, the JVM and the rest of the machine are not blamed for each other.
 */
final class Attribution {
    static final String JVM = SpikeCause.JVM_PAUSE.label();
    static final String MACHINE = SpikeCause.MACHINE_WIDE.label();
    static final String UNEXPLAINED = SpikeCause.UNEXPLAINED.label();
    static final String WORKLOAD = SpikeCause.WORKLOAD.label();
    static final String PREEMPTED = SpikeCause.PREEMPTED.label();
    static final String INTERRUPT = SpikeCause.INTERRUPT.label();
    /**
     * A task held the probe's CPU that could not have preempted the probe (SCHED_OTHER, or a
     * lower RT priority, under an RT probe): it ran because the wake-up itself came late.
     */
    static final String LATE_WAKEUP = SpikeCause.LATE_WAKEUP.label();
    /** Clock reads and wake-up paths blur window edges by a few microseconds. */
    private static final long SLACK_NS = 50_000;
    /** Spikes are reported from this multiple of the thread's median. */
    static final long SPIKE_FACTOR = 10;
    static final long MIN_SPIKE_NS = 20_000;

    private Attribution() {
    }

    /**
     * Whether a task could take the CPU from the probe thread once it was woken: always
     * under a SCHED_OTHER probe; under an RT probe only an RT task of at least its priority
     * (or SCHED_DEADLINE). A task whose policy the trace does not give gets the benefit of
     * the doubt.
     */
    static boolean couldPreempt(Culprit task, SchedPolicy probe, int probePriority) {
        if (probe == null || !probe.isRealtime()) {
            return true;
        }
        switch (task.policy()) {
            case "SCHED_FIFO":
            case "SCHED_RR":
                return task.priority() >= probePriority;
            case "SCHED_OTHER":
            case "SCHED_BATCH":
            case "SCHED_IDLE":
                return false;
            default:
                return true;
        }
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
     * ({@link rtbox.core.toolkit.BusyWindows}) is labelled "workload" with that workload's name.
     * A JVM pause still comes first: it would delay the probe whatever the load did.
     */
    static List<Spike> label(ThreadResult thread, List<JvmStall> jvm, List<JvmStall> hiccups,
            RtThrottling.Settings throttling, long runNs, List<JvmStall> busy) {
        return label(thread, jvm, hiccups, throttling, runNs, busy, null, 0);
    }

    /**
     * As above, with the kernel's trace of the run ({@code trace} null when there is none):
     * {@code startNanos} is the System.nanoTime() that spike offsets count from.
     */
    static List<Spike> label(ThreadResult thread, List<JvmStall> jvm, List<JvmStall> hiccups,
            RtThrottling.Settings throttling, long runNs, List<JvmStall> busy, TraceSession trace, long startNanos) {
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
            long from = s.offsetNs() - s.latencyNs();
            long to = s.offsetNs();
            Evidence ev = Evidence.of(trace, thread, startNanos + from, startNanos + to, s.latencyNs());
            if (throttled[i]) {
                labelled.add(RtThrottling.labelled(s, throttling).withCulprits(ev.all));
                continue;
            }
            JvmStall pause = overlapping(jvm, from, to);
            if (pause != null && (!ev.othersHeldIt || !othersHeldItAfter(pause, trace, thread, startNanos, from,
                    to, s.latencyNs()))) {
                labelled.add(s.withCause(JVM, pause.kind() + " " + pause.detail() + ", "
                        + pause.durationNs() / 1000 + " us").withCulprits(ev.thisJvm));
                continue;
            }
            JvmStall load = overlapping(busy, from, to);
            if (load != null) {
                labelled.add(s.withCause(WORKLOAD, load.detail() + " was busy for " + load.durationNs() / 1000
                        + " us from " + String.format(java.util.Locale.ROOT, "%.6f", load.offsetNs() / 1e9) + " s")
                        .withCulprits(ev.all));
                continue;
            }
            if (ev.othersHeldIt || ev.heldIt) {
                Culprit top = ev.othersHeldIt ? ev.others.get(0) : ev.all.get(0);
                if (!top.isInterrupt() && !couldPreempt(top, policy, thread.priority())) {
                    labelled.add(s.withCause(LATE_WAKEUP, top.who() + " held the CPU for "
                            + Culprit.duration(top.durationNs()) + " but could not have preempted the probe (SCHED_"
                            + policy + " " + thread.priority() + "): the wake-up came late (interrupts off while it ran,"
                            + " or the hypervisor did not run the CPU)").withCulprits(ev.othersHeldIt ? ev.others : ev.all));
                    continue;
                }
                String what = top.isInterrupt() ? top.toString() : "preempted by " + top.who() + " for "
                        + Culprit.duration(top.durationNs());
                labelled.add(s.withCause(top.isInterrupt() ? INTERRUPT : PREEMPTED, what
                        + (pause != null ? " (a " + pause.kind() + " overlapped, but the CPU was not this JVM's)" : ""))
                        .withCulprits(ev.othersHeldIt ? ev.others : ev.all));
                continue;
            }
            JvmStall hiccup = overlapping(hiccups, from, to);
            if (hiccup != null) {
                labelled.add(s.withCause(MACHINE, "the JVM monitor thread on another CPU stalled too ("
                        + hiccup.durationNs() / 1000 + " us) with no safepoint or GC: not this JVM")
                        .withCulprits(ev.all));
                continue;
            }
            if (ev.traced) {
                labelled.add(s.withCause(UNEXPLAINED, "the kernel's trace shows nothing else on the CPU for most of it:"
                        + " the wake-up itself came late (interrupts off, the hypervisor or the hardware)")
                        .withCulprits(ev.all));
                continue;
            }
            labelled.add(s.withCause(UNEXPLAINED, "no JVM pause, no load event: the kernel or the hardware"));
        }
        return labelled;
    }

    /** What the kernel's trace says about one spike's window. */
    private static final class Evidence {
        static final Evidence NONE = new Evidence(false, List.of(), 0);
        final boolean traced;
        /** Everything that held the CPU; this JVM's threads; everything else. Largest first. */
        final List<Culprit> all, thisJvm = new ArrayList<>(), others = new ArrayList<>();
        /** Something, or something outside this JVM, held the CPU for at least half the spike. */
        final boolean heldIt, othersHeldIt;

        private Evidence(boolean traced, List<Culprit> all, long latencyNs) {
            this.traced = traced;
            this.all = all;
            long total = 0, outside = 0;
            for (Culprit c : all) {
                total += c.durationNs();
                if (c.ownJvm()) {
                    thisJvm.add(c);
                } else {
                    others.add(c);
                    outside += c.durationNs();
                }
            }
            heldIt = traced && total * 2 >= latencyNs;
            othersHeldIt = traced && outside * 2 >= latencyNs;
        }

        static Evidence of(TraceSession trace, ThreadResult t, long from, long to, long latencyNs) {
            if (trace == null || !trace.covers(t.cpu(), from - SLACK_NS, to)) {
                return NONE;
            }
            return new Evidence(true, trace.culprits(t.cpu(), from, to, t.tid()), latencyNs);
        }
    }

    /**
     * Whether something outside this JVM held the CPU for at least half the spike after the
     * pause had ended. While the pause lasts the probe's thread is blocked by its JVM, so
     * other processes that run on its CPU then only use time the probe could not: that part
     * is the JVM's, and only what kept the probe from the CPU after the pause counts against
     * the label. A GC known from its notification is placed to the millisecond only.
     */
    private static boolean othersHeldItAfter(JvmStall pause, TraceSession trace, ThreadResult t,
            long startNanos, long from, long to, long latencyNs) {
        long end = pause.offsetNs() + pause.durationNs() + ("gc".equals(pause.kind()) ? 1_000_000 : SLACK_NS);
        if (end >= to) {
            return false;
        }
        long outside = 0;
        for (Culprit c : trace.culprits(t.cpu(), startNanos + Math.max(from, end), startNanos + to, t.tid())) {
            if (!c.ownJvm()) {
                outside += c.durationNs();
            }
        }
        return outside * 2 >= latencyNs;
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
