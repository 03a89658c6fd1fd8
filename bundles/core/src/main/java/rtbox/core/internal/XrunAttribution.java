package rtbox.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import rtbox.api.result.JvmStall;
import rtbox.api.result.RunEvent;

/**
 * Names the JVM's part in a graph's xruns, as {@link Attribution} does for spikes: an
 * {@code xrun} event (at the end of the period its cycle overran) whose cycle overlapped a
 * JVM pause is labelled so, since a safepoint holds the driver, a Java thread, whatever the
 * kernel did; the count goes into the figures as {@code xruns_jvm}, and the judge does not
 * count them against the machine (INCONCLUSIVE, not FAIL). A JVM pause must not be read as
 * the machine's xrun. One that a machine-wide stall overlapped instead (the hiccup monitor,
 * on another CPU, stalled at the same time without a JVM pause: a hypervisor's or the
 * host's) is labelled so and counted as {@code xruns_machine}: that one is still the
 * machine's, as a spike of the same cause is, but it is told apart from the kernel's own.
 */
final class XrunAttribution {
    static final String XRUN = "xrun";

    private XrunAttribution() {
    }

    static final String DURING_JVM = " (during a JVM pause: ", DURING_MACHINE = " (during a machine-wide stall: ";

    /** The events with each xrun that a JVM pause overlapped labelled; {@code periodNs} is the graph's period. */
    static List<RunEvent> label(List<RunEvent> events, List<JvmStall> jvm, long periodNs) {
        return label(events, jvm, List.of(), periodNs);
    }

    /**
     * As above, and an xrun that no JVM pause but a machine-wide stall ({@code hiccups}, seen
     * from another CPU) overlapped is labelled so. A JVM pause comes first: it holds the driver
     * whatever else happened.
     */
    static List<RunEvent> label(List<RunEvent> events, List<JvmStall> jvm, List<JvmStall> hiccups, long periodNs) {
        List<RunEvent> out = new ArrayList<>(events.size());
        for (RunEvent e : events) {
            if (!e.kind().equals(XRUN)) {
                out.add(e);
                continue;
            }
            JvmStall s = overlapping(jvm, e.offsetNs() - periodNs, e.offsetNs());
            String label = DURING_JVM;
            if (s == null) {
                s = overlapping(hiccups, e.offsetNs() - periodNs, e.offsetNs());
                label = DURING_MACHINE;
            }
            out.add(s == null ? e : new RunEvent(e.offsetNs(), e.kind(), e.detail() + label + s.kind()
                    + (s.detail().isEmpty() ? "" : " " + s.detail()) + ", " + s.durationNs() / 1000 + " us)"));
        }
        return out;
    }

    /** The figures with {@code xruns_jvm} and {@code xruns_machine} added when the probe reported xruns. */
    static Map<String, Double> figures(Map<String, Double> figures, List<RunEvent> labelled) {
        if (!figures.containsKey("xruns")) {
            return figures;
        }
        Map<String, Double> f = new LinkedHashMap<>(figures);
        f.put("xruns_jvm", (double) count(labelled, DURING_JVM));
        f.put("xruns_machine", (double) count(labelled, DURING_MACHINE));
        return f;
    }

    private static long count(List<RunEvent> labelled, String label) {
        return labelled.stream().filter(e -> e.kind().equals(XRUN) && e.detail().contains(label)).count();
    }

    /** A JVM pause that overlaps the cycle [from, to), or null. */
    private static JvmStall overlapping(List<JvmStall> jvm, long from, long to) {
        for (JvmStall s : jvm) {
            if (s.offsetNs() < to && s.offsetNs() + s.durationNs() > from) {
                return s;
            }
        }
        return null;
    }
}
