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

    /**
     * One workload's figures as a JSON document for scripts:
     * {@code {"workload": NAME, "parameters": {K: "V"}, "duration_s": D, "figures": {K: number}}}, figures
     * at full precision (a figure that is not a finite number is null).
     */
    static String json(String name, Map<String, String> parameters, double durationS, Map<String, Double> figures) {
        StringBuilder b = new StringBuilder("{\n  \"workload\": ").append(quote(name)).append(",\n  \"parameters\": {");
        String sep = "";
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            b.append(sep).append(quote(e.getKey())).append(": ").append(quote(e.getValue()));
            sep = ", ";
        }
        b.append("},\n  \"duration_s\": ").append(number(durationS)).append(",\n  \"figures\": {");
        sep = "\n";
        for (Map.Entry<String, Double> e : figures.entrySet()) {
            b.append(sep).append("    ").append(quote(e.getKey())).append(": ").append(number(e.getValue()));
            sep = ",\n";
        }
        return b.append(figures.isEmpty() ? "}\n}\n" : "\n  }\n}\n").toString();
    }

    private static String number(Double v) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            return "null";
        }
        double d = v;
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }
}
