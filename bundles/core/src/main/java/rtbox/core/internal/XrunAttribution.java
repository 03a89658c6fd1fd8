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
 * kernel did; the count goes into the figures as {@code xruns_jvm}. A JVM pause must not
 * be read as the machine's xrun.
 */
final class XrunAttribution {
    static final String XRUN = "xrun";

    private XrunAttribution() {
    }

    /** The events with each xrun that a JVM pause overlapped labelled; {@code periodNs} is the graph's period. */
    static List<RunEvent> label(List<RunEvent> events, List<JvmStall> jvm, long periodNs) {
        List<RunEvent> out = new ArrayList<>(events.size());
        for (RunEvent e : events) {
            JvmStall s = e.kind().equals(XRUN) ? overlapping(jvm, e.offsetNs() - periodNs, e.offsetNs()) : null;
            out.add(s == null ? e : new RunEvent(e.offsetNs(), e.kind(), e.detail() + " (during a JVM pause: "
                    + s.kind() + (s.detail().isEmpty() ? "" : " " + s.detail()) + ", " + s.durationNs() / 1000 + " us)"));
        }
        return out;
    }

    /** The figures with {@code xruns_jvm} added when the probe reported xruns. */
    static Map<String, Double> figures(Map<String, Double> figures, List<RunEvent> labelled) {
        if (!figures.containsKey("xruns")) {
            return figures;
        }
        long n = labelled.stream().filter(e -> e.kind().equals(XRUN) && e.detail().contains("(during a JVM pause"))
                .count();
        Map<String, Double> f = new LinkedHashMap<>(figures);
        f.put("xruns_jvm", (double) n);
        return f;
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
