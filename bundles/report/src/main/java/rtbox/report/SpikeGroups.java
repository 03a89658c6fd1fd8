package rtbox.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.result.Culprit;
import rtbox.api.result.Spike;

/**
 * A thread's spikes as a person reads them: grouped by cause and culprit, largest group
 * first ({@code 52 spikes: 20 preempted by disturber (pid 4242, SCHED_FIFO 99), median
 * 5003 us; 30 machine-wide stall, median 2100 us; 2 JVM pause, median 12 ms}), then the
 * few largest spikes with their evidence. The full list stays in the JSON report.
 */
final class SpikeGroups {
    /** Spikes listed one by one under the groups. */
    static final int LARGEST = 5;

    private SpikeGroups() {
    }

    /**
     * The group a spike belongs to: its cause, and its main culprit when the trace named
     * one that held the CPU for at least half the spike (a softirq of 8 us under a 2 ms
     * stall is on the spike's own line, not in its group's name).
     */
    static String group(Spike s) {
        if (s.culprits().isEmpty() || s.culprits().get(0).durationNs() * 2 < s.latencyNs()) {
            return s.cause();
        }
        Culprit top = s.culprits().get(0);
        if ("preempted".equals(s.cause())) {
            return "preempted by " + top.who();
        }
        if ("interrupt".equals(s.cause())) {
            return top.who();
        }
        return s.cause() + " (" + top.who() + ")";
    }

    /** The lines for one thread, each to be prefixed by the caller. */
    static List<String> lines(List<Spike> spikes) {
        List<String> out = new ArrayList<>();
        if (spikes.isEmpty()) {
            return out;
        }
        Map<String, List<Long>> groups = new LinkedHashMap<>();
        for (Spike s : spikes) {
            groups.computeIfAbsent(group(s), k -> new ArrayList<>()).add(s.latencyNs());
        }
        List<Map.Entry<String, List<Long>>> sorted = new ArrayList<>(groups.entrySet());
        sorted.sort(Comparator.comparingInt((Map.Entry<String, List<Long>> e) -> e.getValue().size()).reversed());
        StringBuilder b = new StringBuilder().append(spikes.size()).append(spikes.size() == 1 ? " spike: " : " spikes: ");
        for (int i = 0; i < sorted.size(); i++) {
            List<Long> l = sorted.get(i).getValue();
            l.sort(null);
            b.append(i == 0 ? "" : "; ").append(l.size()).append(' ').append(sorted.get(i).getKey())
                    .append(", median ").append(Culprit.duration(l.get(l.size() / 2)));
            if (l.size() > 1) {
                b.append(", max ").append(Culprit.duration(l.get(l.size() - 1)));
            }
        }
        out.add(b.toString());
        List<Spike> largest = new ArrayList<>(spikes);
        largest.sort(Comparator.comparingLong(Spike::latencyNs).reversed());
        int n = Math.min(LARGEST, largest.size());
        out.add(n == spikes.size() ? "each:" : "largest " + n + " (all " + spikes.size() + " in the JSON report):");
        for (Spike s : largest.subList(0, n)) {
            out.add(String.format(Locale.ROOT, "  at %.3f s: %s, %s: %s%s", s.offsetNs() / 1e9,
                    Culprit.duration(s.latencyNs()), s.cause(), s.detail(),
                    s.culprits().isEmpty() ? "" : "; on the CPU: " + s.culpritText()));
        }
        return out;
    }
}
