package rtbox.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;

/**
 * Renders runs as one self-contained HTML page: no script, no external file, so it
 * can be mailed, archived with the acceptance record and opened years later. Per
 * cell: the latency histogram of each measuring thread with a log-scale count axis
 * (the OSADL QA Farm's plot), the spikes over time coloured by their cause, and the
 * checks; for several cells, the comparison table first (cell x worst delay, misses,
 * verdict), as seed 004's table.
 */
public final class HtmlReport {
    /** Series colours, one per measuring thread (CPU), in order. */
    public static final String[] THREAD_COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};
    /** Colours of spike causes; any other cause is drawn grey. */
    public static final Map<String, String> CAUSE_COLOURS = new LinkedHashMap<>();

    static {
        CAUSE_COLOURS.put("RT throttling", "#ff7f0e");
        CAUSE_COLOURS.put("JVM pause", "#9400d3");
        CAUSE_COLOURS.put("workload", "#17becf");
        CAUSE_COLOURS.put("machine-wide stall", "#7f7f00");
        CAUSE_COLOURS.put("unexplained", "#000000");
    }

    private static final int W = 900, H = 260, LEFT = 60, RIGHT = 180, TOP = 20, BOTTOM = 40;

    private HtmlReport() {
    }

    public static String render(String title, String overall, List<ReportCell> cells) {
        StringBuilder b = new StringBuilder(64 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:1.5em;color:#222}"
                        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px;"
                        + "text-align:right}th:first-child,td:first-child{text-align:left}"
                        + ".PASS{background:#dfd}.FAIL{background:#fdd}.INCONCLUSIVE{background:#ffd}"
                        + ".ERROR{background:#ddd}svg{display:block;margin:.5em 0}"
                        + "section{border-top:2px solid #888;margin-top:2em}pre{font-size:85%}</style></head><body>\n");
        b.append("<h1>").append(esc(title)).append("</h1>\n<p class=\"overall\"><b>").append(esc(overall))
                .append("</b></p>\n");
        b.append(table(cells));
        for (ReportCell c : cells) {
            b.append(cell(c));
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static String table(List<ReportCell> cells) {
        StringBuilder b = new StringBuilder("<table class=\"matrix\"><tr><th>cell</th><th>verdict</th>"
                + "<th>worst delay (us)</th><th>p99 (us)</th><th>missed deadlines</th><th>overflows</th>"
                + "<th>spikes by cause</th></tr>\n");
        for (ReportCell c : cells) {
            RunReport r = c.report();
            long max = 0, p99 = 0, missed = 0, overflows = 0;
            Map<String, Integer> causes = new LinkedHashMap<>();
            for (ThreadResult t : r.result().threads()) {
                max = Math.max(max, t.latency().maxNs());
                p99 = Math.max(p99, t.latency().p99Ns());
                missed += t.missedDeadlines();
                overflows += t.latency().overflows();
                for (Spike s : t.spikes()) {
                    causes.merge(s.cause(), 1, Integer::sum);
                }
            }
            String outcome = r.verdict().outcome().name();
            b.append("<tr class=\"").append(outcome).append("\"><td>").append(esc(c.name())).append("</td><td>")
                    .append(outcome).append("</td><td>").append(us(max)).append("</td><td>").append(us(p99))
                    .append("</td><td>").append(missed).append("</td><td>").append(overflows).append("</td><td>")
                    .append(esc(causes.isEmpty() ? "none" : causes.toString().replaceAll("[{}]", "").replace("=", " "))).append("</td></tr>\n");
        }
        return b.append("</table>\n").toString();
    }

    private static String cell(ReportCell c) {
        RunReport r = c.report();
        StringBuilder b = new StringBuilder("<section class=\"cell\"><h2>").append(esc(c.name())).append("</h2>\n");
        b.append("<p>").append(r.verdict().outcome()).append(": ").append(esc(r.verdict().reason())).append("</p>\n");
        b.append("<p>").append(esc(r.command())).append("<br>").append(esc(r.system().get("release"))).append(", ")
                .append(esc(r.system().get("preemption"))).append(", ").append(esc(r.system().get("cpu_model")))
                .append("</p>\n");
        b.append(histogramPlot(r));
        b.append(spikePlot(r));
        b.append("<pre>").append(esc(rtbox.core.Reports.summary(r))).append("</pre></section>\n");
        return b.toString();
    }

    /** Latency histograms, one step line per thread, count axis log10. */
    static String histogramPlot(RunReport r) {
        List<ThreadResult> threads = r.result().threads();
        int last = 1;
        long top = 1;
        for (ThreadResult t : threads) {
            long[] c = t.latency().counts();
            for (int i = 0; i < c.length; i++) {
                if (c[i] > 0) {
                    last = Math.max(last, i + 1);
                    top = Math.max(top, c[i]);
                }
            }
        }
        double decades = Math.max(1, Math.ceil(Math.log10(top)));
        StringBuilder b = svgStart("histogram", "latency histogram (count, log scale)");
        axes(b, 0, last, "latency (us)", decades);
        for (int k = 0; k < threads.size(); k++) {
            ThreadResult t = threads.get(k);
            Histogram h = t.latency();
            String colour = THREAD_COLOURS[k % THREAD_COLOURS.length];
            StringBuilder d = new StringBuilder();
            long[] c = h.counts();
            for (int i = 0; i < Math.min(last, c.length); i++) {
                double y = c[i] == 0 ? 0 : Math.log10(c[i]) + 0.3;
                double py = TOP + (H - TOP - BOTTOM) * (1 - Math.min(1, y / (decades + 0.3)));
                double x0 = LEFT + (W - LEFT - RIGHT) * (double) i / last;
                double x1 = LEFT + (W - LEFT - RIGHT) * (double) (i + 1) / last;
                d.append(i == 0 ? "M" : "L").append(f(x0)).append(',').append(f(py)).append("L").append(f(x1))
                        .append(',').append(f(py));
            }
            b.append("<path class=\"series\" data-series=\"cpu ").append(t.cpu()).append("\" fill=\"none\" stroke=\"")
                    .append(colour).append("\" stroke-width=\"2\" d=\"").append(d).append("\"/>\n");
            b.append("<text x=\"").append(W - RIGHT + 10).append("\" y=\"").append(TOP + 14 + 16 * k)
                    .append("\" fill=\"").append(colour).append("\" font-size=\"11\">CPU ").append(t.cpu())
                    .append(": max ").append(us(h.maxNs())).append(" us, ").append(h.overflows()).append(" over")
                    .append("</text>\n");
        }
        return b.append("</svg>\n").toString();
    }

    /** Spikes over the run's time line, one dot per spike, coloured by cause. */
    static String spikePlot(RunReport r) {
        List<Spike> spikes = new ArrayList<>();
        r.result().threads().forEach(t -> spikes.addAll(t.spikes()));
        double seconds = Math.max(1e-3, r.result().durationNs() / 1e9);
        long top = Math.max(100_000, spikes.stream().mapToLong(Spike::latencyNs).max().orElse(0));
        StringBuilder b = svgStart("spikes", "spikes over time (latency, log scale), coloured by cause");
        b.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(H - BOTTOM).append("\" x2=\"").append(W - RIGHT)
                .append("\" y2=\"").append(H - BOTTOM).append("\" stroke=\"#444\"/>\n");
        b.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(TOP).append("\" x2=\"").append(LEFT)
                .append("\" y2=\"").append(H - BOTTOM).append("\" stroke=\"#444\"/>\n");
        b.append(label(LEFT, H - 8, "0 s")).append(label(W - RIGHT - 40, H - 8, f(seconds) + " s"))
                .append(label(4, TOP + 4, us(top) + " us")).append(label(4, H - BOTTOM, "10 us"));
        if (spikes.isEmpty()) {
            b.append(label(LEFT + 20, TOP + 40, "no spike over 10x the median"));
        }
        for (Spike s : spikes) {
            double x = LEFT + (W - LEFT - RIGHT) * Math.min(1, s.offsetNs() / 1e9 / seconds);
            // Log scale from 10 us: a 50 ms throttling stall and a 300 us spike on one plot.
            double y = H - BOTTOM - (H - TOP - BOTTOM) * Math.log10(Math.max(1, s.latencyNs() / 10_000.0))
                    / Math.max(1e-9, Math.log10(top / 10_000.0));
            b.append("<circle class=\"spike\" data-cause=\"").append(esc(s.cause())).append("\" cx=\"").append(f(x))
                    .append("\" cy=\"").append(f(y)).append("\" r=\"4\" fill=\"").append(colourOf(s.cause()))
                    .append("\"><title>").append(esc(s.cause() + ": " + us(s.latencyNs()) + " us, " + s.detail()))
                    .append("</title></circle>\n");
        }
        int k = 0;
        for (Map.Entry<String, String> e : CAUSE_COLOURS.entrySet()) {
            int y = TOP + 14 + 16 * k++;
            b.append("<rect x=\"").append(W - RIGHT + 10).append("\" y=\"").append(y - 9).append("\" width=\"10\" "
                    + "height=\"10\" fill=\"").append(e.getValue()).append("\"/>")
                    .append(label(W - RIGHT + 25, y, e.getKey()));
        }
        return b.append("</svg>\n").toString();
    }

    static String colourOf(String cause) {
        for (Map.Entry<String, String> e : CAUSE_COLOURS.entrySet()) {
            if (cause != null && cause.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return "#999999";
    }

    private static StringBuilder svgStart(String kind, String caption) {
        return new StringBuilder("<svg class=\"").append(kind).append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(W).append("\" height=\"").append(H).append("\" viewBox=\"0 0 ").append(W).append(' ').append(H)
                .append("\" role=\"img\" aria-label=\"").append(caption).append("\">\n<title>").append(caption)
                .append("</title>\n");
    }

    private static void axes(StringBuilder b, int fromUs, int toUs, String xLabel, double decades) {
        b.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(H - BOTTOM).append("\" x2=\"").append(W - RIGHT)
                .append("\" y2=\"").append(H - BOTTOM).append("\" stroke=\"#444\"/>\n");
        b.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(TOP).append("\" x2=\"").append(LEFT)
                .append("\" y2=\"").append(H - BOTTOM).append("\" stroke=\"#444\"/>\n");
        for (int d = 0; d <= decades; d++) {
            double y = TOP + (H - TOP - BOTTOM) * (1 - (d + 0.3) / (decades + 0.3));
            b.append(label(4, (int) y + 4, "1e" + d));
        }
        b.append(label(LEFT, H - 8, fromUs + " us")).append(label(W - RIGHT - 60, H - 8, toUs + " us"))
                .append(label(W / 2 - 30, H - 8, xLabel));
    }

    private static String label(int x, int y, String text) {
        return "<text x=\"" + x + "\" y=\"" + y + "\" font-size=\"11\" fill=\"#333\">" + esc(text) + "</text>";
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static long us(long ns) {
        return Math.round(ns / 1000.0);
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
