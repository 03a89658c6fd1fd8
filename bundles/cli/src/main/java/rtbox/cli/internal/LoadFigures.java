package rtbox.cli.internal;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.result.RunEvent;

/** Prints workloads' figures and the run's load and swap events. */
final class LoadFigures {
    private LoadFigures() {
    }

    static String format(Map<String, Map<String, Double>> workloads, List<RunEvent> events) {
        StringBuilder b = new StringBuilder();
        if (workloads != null) {
            for (Map.Entry<String, Map<String, Double>> w : workloads.entrySet()) {
                b.append("load ").append(w.getKey()).append(":\n").append(figures(w.getValue(), "  "));
            }
        }
        if (events != null) {
            for (RunEvent e : events) {
                if (e.kind().startsWith("swap") || e.kind().equals("load")) {
                    b.append(String.format(Locale.ROOT, "event %+.3f s %s: %s%n", e.offsetNs() / 1e9, e.kind(),
                            e.detail()));
                }
            }
        }
        return b.toString();
    }

    static String figures(Map<String, Double> f, String indent) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Double> e : f.entrySet()) {
            double v = e.getValue();
            String text = v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                    : String.format(Locale.ROOT, "%.4g", v);
            b.append(indent).append(String.format(Locale.ROOT, "%-22s %s%n", e.getKey(), text));
        }
        return b.toString();
    }
}
