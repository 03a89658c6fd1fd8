package rtbox.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import rtbox.api.result.Check;
import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;

/**
 * Renders runs as one self-contained HTML page: uPlot and rtbox's plots.js are inlined
 * (see {@link PlotAssets}), so it opens offline, can be mailed, archived with the
 * acceptance record and opened years later. Per cell: the latency histogram of each CPU
 * on a log latency axis and a log count axis (the OSADL QA Farm's plot) with the
 * thresholds drawn, min/p50/p99/p99.9/max per CPU in the legend, the spikes over time
 * coloured by cause, the spike list grouped by cause (collapsed) and the checks; for
 * several cells, the comparison table and all cells overlaid in one plot first. The
 * table, the figures and the checks are plain HTML: they read without JavaScript.
 */
public final class HtmlReport {
    /** Series colours, one per CPU (CPU number modulo the list): plots.js's CPU_COLOURS. */
    public static final String[] THREAD_COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};
    /** Colours of spike causes; any other cause is drawn grey: plots.js's CAUSE_COLOURS. */
    public static final Map<String, String> CAUSE_COLOURS = new LinkedHashMap<>();
    /** Colours of overlaid cells, in order: plots.js's CELL_COLOURS. */
    public static final String[] CELL_COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#17becf"};
    /** The threshold lines: plots.js's THRESHOLD_COLOUR. */
    public static final String THRESHOLD_COLOUR = "#ff00ff";
    /** The grid lines: plots.js's GRID_COLOUR. */
    public static final String GRID_COLOUR = "#dddddd";

    static {
        CAUSE_COLOURS.put("RT throttling", "#ff7f0e");
        CAUSE_COLOURS.put(rtbox.api.result.SpikeCause.JVM_PAUSE.label(), "#9400d3");
        CAUSE_COLOURS.put("workload", "#17becf");
        CAUSE_COLOURS.put("machine-wide stall", "#7f7f00");
        CAUSE_COLOURS.put("unexplained", "#000000");
        // from the kernel's trace: another thread or an interrupt held the probe's CPU
        CAUSE_COLOURS.put("preempted", "#a6761d");
        CAUSE_COLOURS.put("interrupt", "#31a354");
        // a task that could not have preempted the probe held its CPU: the wake-up came late
        CAUSE_COLOURS.put("late wake-up", "#e7298a");
    }

    private static final Pattern PLAN_COMMAND = Pattern.compile("^rtbox plan run (\\S+)");

    /** The pWCET estimate as the JSON report has it (plots.js reads the same object from either). */
    private static final com.google.gson.Gson PWCET_JSON = new com.google.gson.Gson();

    private HtmlReport() {
    }

    public static String render(String title, String overall, List<ReportCell> cells) {
        return render(title, null, overall, cells);
    }

    /**
     * The page for {@code cells}. {@code planFile} is the plan file as the user named it
     * (null for a single run): shown in the header and in each cell's command line in place
     * of the copy the appliance ran from.
     */
    public static String render(String title, String planFile, String overall, List<ReportCell> cells) {
        return render(title, planFile, overall, cells, null);
    }

    /** As {@link #render(String, String, String, List)}, with a repeating plan's table of medians and ranges (null: none). */
    static String render(String title, String planFile, String overall, List<ReportCell> cells, String repetitions) {
        StringBuilder b = new StringBuilder(128 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title))
                .append("</title>\n<style>").append(PlotAssets.text(PlotAssets.UPLOT_CSS)).append("\n")
                .append("body{font-family:sans-serif;margin:1.5em;color:#222;max-width:920px}"
                        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px;"
                        + "text-align:right}th:first-child,td:first-child{text-align:left}"
                        + ".PASS{background:#dfd}.FAIL{background:#fdd}.INCONCLUSIVE{background:#ffd}"
                        + ".ERROR{background:#ddd}.MEASURED{background:#eef}"
                        + "section{border-top:2px solid #888;margin-top:2em}pre{font-size:85%}"
                        + ".plot{margin:1em 0}table.legend{font-size:90%;margin:.3em 0 0 0}"
                        + "details{margin:.3em 0}summary{cursor:pointer}.u-title{font-size:14px}</style></head><body>\n");
        b.append("<h1>").append(esc(title)).append("</h1>\n");
        if (planFile != null) {
            b.append("<p class=\"plan-file\">plan file: <b>").append(esc(planFile)).append("</b></p>\n");
        }
        b.append("<p class=\"overall\"><b>").append(esc(overall)).append("</b></p>\n");
        b.append("<noscript><p>The plots need JavaScript (inlined in this file: nothing is fetched).</p></noscript>\n");
        b.append(table(cells));
        if (repetitions != null) {
            b.append("<section class=\"repetitions\"><h2>Repetitions</h2>\n<pre>").append(esc(repetitions))
                    .append("</pre></section>\n");
        }
        if (cells.size() > 1) {
            b.append("<section class=\"overlay\"><h2>All cells overlaid</h2>\n<div data-plot=\"overlay\"></div></section>\n");
        }
        for (int k = 0; k < cells.size(); k++) {
            b.append(cell(k, cells.get(k), planFile));
        }
        b.append("<script type=\"application/json\" id=\"rtbox-plots\">").append(model(cells)).append("</script>\n");
        b.append("<script data-lib=\"uPlot ").append(PlotAssets.UPLOT_VERSION).append("\">")
                .append(PlotAssets.text(PlotAssets.UPLOT_JS)).append("</script>\n");
        // plots.js is a module with exports; inlined, its functions are in this script's scope.
        b.append("<script type=\"module\">\n").append(PlotAssets.text(PlotAssets.PLOTS_JS))
                .append("\nrenderAll(document, JSON.parse(document.getElementById(\"rtbox-plots\").textContent));\n")
                .append("</script>\n</body></html>\n");
        return b.toString();
    }

    private static String table(List<ReportCell> cells) {
        StringBuilder b = new StringBuilder("<table class=\"matrix\"><tr><th>cell</th><th>verdict</th>"
                + "<th>worst delay (us)</th><th>p99 (us)</th><th>p99.9 (us)</th><th>missed deadlines</th>"
                + "<th>overflows</th><th>spikes by cause</th></tr>\n");
        for (ReportCell c : cells) {
            RunReport r = c.report();
            long max = 0, p99 = 0, p999 = 0, missed = 0, overflows = 0;
            for (ThreadResult t : r.result().threads()) {
                max = Math.max(max, t.latency().maxNs());
                p99 = Math.max(p99, t.latency().p99Ns());
                p999 = Math.max(p999, t.latency().p999Ns());
                missed += t.missedDeadlines();
                overflows += t.latency().overflows();
            }
            Map<String, List<Spike>> causes = spikesByCause(r);
            StringBuilder byCause = new StringBuilder();
            causes.forEach((k, v) -> byCause.append(byCause.length() == 0 ? "" : ", ").append(k).append(' ').append(v.size()));
            String outcome = r.verdict().outcome().name();
            b.append("<tr class=\"").append(outcome).append("\"><td>").append(esc(c.name())).append("</td><td>")
                    .append(outcome).append("</td><td>").append(us(max)).append("</td><td>").append(us(p99))
                    .append("</td><td>").append(us(p999)).append("</td><td>").append(missed).append("</td><td>")
                    .append(overflows).append("</td><td>").append(esc(causes.isEmpty() ? "none" : byCause.toString()))
                    .append("</td></tr>\n");
        }
        return b.append("</table>\n").toString();
    }

    private static String cell(int index, ReportCell c, String planFile) {
        RunReport r = c.report();
        StringBuilder b = new StringBuilder("<section class=\"cell\"><h2>").append(esc(c.name())).append("</h2>\n");
        b.append("<p class=\"").append(r.verdict().outcome()).append("\">").append(r.verdict().outcome()).append(": ")
                .append(esc(r.verdict().reason())).append("</p>\n");
        b.append("<p>").append(esc(command(r, planFile))).append("<br>").append(esc(r.system().get("release")))
                .append(", ").append(esc(r.system().get("preemption"))).append(", ")
                .append(esc(r.system().get("cpu_model"))).append("<br><span class=\"rtbox-version\">measured by rtbox ")
                .append(esc(r.system().get("rtbox_version"))).append(" (git ").append(esc(r.system().get("rtbox_commit")))
                .append(")</span></p>\n");
        b.append("<div data-plot=\"histogram\" data-cell=\"").append(index).append("\"></div>\n");
        b.append("<div data-plot=\"spikes\" data-cell=\"").append(index).append("\"></div>\n");
        b.append(pwcet(index, r));
        b.append(spikeList(r));
        b.append("<pre>").append(esc(summaryWithoutSpikes(r))).append("</pre></section>\n");
        return b.toString();
    }

    /**
     * The pWCET estimate, when the run has one: the exceedance plot (an estimate that holds) and
     * the checks with their findings as a table, or the refusal, in plain HTML.
     */
    private static String pwcet(int index, RunReport r) {
        rtbox.api.result.Pwcet p = r.pwcet();
        if (p == null || p.cell() == null) {
            return "";
        }
        rtbox.api.result.PwcetEstimate e = p.cell();
        StringBuilder b = new StringBuilder("<div class=\"pwcet\"><h3>Probabilistic worst case (pWCET)</h3>\n");
        if (e.applicable()) {
            b.append("<div data-plot=\"pwcet\" data-cell=\"").append(index).append("\"></div>\n");
        } else {
            b.append("<p class=\"INCONCLUSIVE\">").append(esc(e.scope() + ": " + e.refusal())).append("</p>\n");
        }
        b.append("<table class=\"pwcet-checks\"><tr><th>estimate</th><th>check</th><th>held</th><th>finding</th></tr>\n");
        for (rtbox.api.result.PwcetEstimate x : p.estimates()) {
            for (rtbox.api.result.PwcetCheck c : x.checks()) {
                b.append("<tr><td>").append(esc(x.scope())).append("</td><td>").append(esc(c.name())).append("</td><td>")
                        .append(c.passed() ? "yes" : "no").append("</td><td style=\"text-align:left\">")
                        .append(esc(c.detail())).append("</td></tr>\n");
            }
            for (rtbox.api.result.PwcetLevel l : x.levels()) {
                b.append("<tr><td>").append(esc(x.scope())).append("</td><td>level</td><td></td>")
                        .append("<td style=\"text-align:left\">").append(esc(PwcetText.level(l))).append("</td></tr>\n");
            }
        }
        return b.append("</table></div>\n").toString();
    }

    /** The command that ran, with the user's plan file in place of the appliance's copy of it. */
    static String command(RunReport r, String planFile) {
        if (planFile == null || r.command() == null) {
            return r.command();
        }
        Matcher m = PLAN_COMMAND.matcher(r.command());
        return m.find() ? "rtbox plan run " + planFile + r.command().substring(m.end()) : r.command();
    }

    /** The text summary; the spikes are listed by cause in the page instead, collapsed. */
    private static String summaryWithoutSpikes(RunReport r) {
        StringBuilder b = new StringBuilder();
        for (String line : rtbox.report.Reports.summary(r).split("\n")) {
            // The grouped line stays; the largest spikes listed under it are in the page's list.
            if (!line.startsWith("#     at ") && !line.startsWith("#   largest ") && !line.equals("#   each:")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    static Map<String, List<Spike>> spikesByCause(RunReport r) {
        Map<String, List<Spike>> groups = new LinkedHashMap<>();
        for (String cause : CAUSE_COLOURS.keySet()) {
            groups.put(cause, new ArrayList<>());
        }
        for (ThreadResult t : r.result().threads()) {
            for (Spike s : t.spikes()) {
                groups.computeIfAbsent(causeGroup(s.cause()), k -> new ArrayList<>()).add(s);
            }
        }
        groups.values().removeIf(List::isEmpty);
        return groups;
    }

    /** The spikes grouped by cause, each group collapsed, worst first within a group. */
    private static String spikeList(RunReport r) {
        Map<String, List<Spike>> groups = spikesByCause(r);
        int total = groups.values().stream().mapToInt(List::size).sum();
        StringBuilder b = new StringBuilder("<details class=\"spike-list\"><summary>")
                .append(total).append(total == 1 ? " spike" : " spikes");
        long dropped = r.result().threads().stream().mapToLong(ThreadResult::spikesDropped).sum();
        if (dropped > 0) {
            b.append(" (").append(dropped).append(" more not kept)");
        }
        b.append("</summary>\n");
        Map<Integer, Integer> cpuOf = new LinkedHashMap<>();
        r.result().threads().forEach(t -> cpuOf.put(t.thread(), t.cpu()));
        for (Map.Entry<String, List<Spike>> g : groups.entrySet()) {
            List<Spike> list = new ArrayList<>(g.getValue());
            list.sort((x, y) -> Long.compare(y.latencyNs(), x.latencyNs()));
            b.append("<details class=\"cause\" data-cause=\"").append(esc(g.getKey())).append("\"><summary>")
                    .append("<span style=\"display:inline-block;width:.9em;height:.9em;background:")
                    .append(colourOf(g.getKey())).append("\"></span> ").append(esc(g.getKey())).append(": ")
                    .append(list.size()).append(", worst ").append(us(list.get(0).latencyNs())).append(" us</summary>\n")
                    .append("<table><tr><th>at (s)</th><th>CPU</th><th>latency (us)</th><th>evidence</th></tr>\n");
            for (Spike s : list) {
                b.append("<tr class=\"spike\"><td>").append(String.format(Locale.ROOT, "%.3f", s.offsetNs() / 1e9))
                        .append("</td><td>").append(cpuOf.getOrDefault(s.thread(), s.thread())).append("</td><td>")
                        .append(us(s.latencyNs())).append("</td><td>").append(esc(s.cause() + ": " + s.detail()
                                + (s.culprits().isEmpty() ? "" : "; on the CPU: " + s.culpritText())))
                        .append("</td></tr>\n");
            }
            b.append("</table></details>\n");
        }
        return b.append("</details>\n").toString();
    }

    /** The cells as plots.js's model (its cellFromRunReport says the fields), as JSON. */
    static String model(List<ReportCell> cells) {
        StringBuilder b = new StringBuilder("{\"cells\":[");
        for (int k = 0; k < cells.size(); k++) {
            RunReport r = cells.get(k).report();
            Double max = null, p99 = null, p999 = null, pwcet = null;
            for (Check c : r.verdict().checks()) {
                switch (c.metric()) {
                    case "max_latency_us": max = c.threshold(); break;
                    case "p99_us": p99 = c.threshold(); break;
                    case "p99.9_us": p999 = c.threshold(); break;
                    case "pwcet_us": pwcet = c.threshold(); break;
                    default: break;
                }
            }
            b.append(k == 0 ? "" : ",").append("{\"name\":").append(jsonString(cells.get(k).name()))
                    .append(",\"verdict\":").append(jsonString(r.verdict().outcome().name()))
                    .append(",\"durationS\":").append(num(r.result().durationNs() / 1e9))
                    .append(",\"thresholds\":{\"max\":").append(num(max)).append(",\"p99\":").append(num(p99))
                    .append(",\"p999\":").append(num(p999)).append(",\"pwcet\":").append(num(pwcet))
                    .append("},\"pwcet\":").append(PWCET_JSON.toJson(r.pwcet()).replace("</", "<\\/"))
                    .append(",\"threads\":[");
            List<ThreadResult> threads = r.result().threads();
            StringBuilder spikes = new StringBuilder();
            for (int i = 0; i < threads.size(); i++) {
                ThreadResult t = threads.get(i);
                Histogram h = t.latency();
                long[] c = h.counts();
                int last = c.length;
                while (last > 0 && c[last - 1] == 0) {
                    last--;
                }
                b.append(i == 0 ? "" : ",").append("{\"cpu\":").append(t.cpu()).append(",\"bucketUs\":")
                        .append(num(h.bucketWidthNs() / 1000.0)).append(",\"counts\":[");
                for (int j = 0; j < last; j++) {
                    b.append(j == 0 ? "" : ",").append(c[j]);
                }
                b.append("],\"overflows\":").append(h.overflows()).append(",\"samples\":").append(h.samples())
                        .append(",\"min\":").append(num(h.minNs() / 1000.0)).append(",\"avg\":").append(num(h.avgNs() / 1000.0))
                        .append(",\"p50\":").append(num(h.p50Ns() / 1000.0)).append(",\"p99\":").append(num(h.p99Ns() / 1000.0))
                        .append(",\"p999\":").append(num(h.p999Ns() / 1000.0)).append(",\"max\":")
                        .append(num(h.maxNs() / 1000.0)).append('}');
                for (Spike s : t.spikes()) {
                    spikes.append(spikes.length() == 0 ? "" : ",").append("{\"t\":").append(num(s.offsetNs() / 1e9))
                            .append(",\"us\":").append(num(s.latencyNs() / 1000.0)).append(",\"cpu\":").append(t.cpu())
                            .append(",\"cause\":").append(jsonString(s.cause())).append(",\"detail\":")
                            .append(jsonString(s.detail())).append('}');
                }
            }
            b.append("],\"spikes\":[").append(spikes).append("]}");
        }
        return b.append("]}").toString();
    }

    static String causeGroup(String cause) {
        for (String name : CAUSE_COLOURS.keySet()) {
            if (cause != null && cause.startsWith(name)) {
                return name;
            }
        }
        return cause == null ? "unknown" : cause;
    }

    static String colourOf(String cause) {
        for (Map.Entry<String, String> e : CAUSE_COLOURS.entrySet()) {
            if (cause != null && cause.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return "#999999";
    }

    private static String num(Double v) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            return "null";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString(v.longValue()) : Double.toString(v);
    }

    /** A JSON string that is also safe inside a script element (no "</" can close it). */
    static String jsonString(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '<': b.append("\\u003c"); break;
                case '>': b.append("\\u003e"); break;
                case '&': b.append("\\u0026"); break;
                default:
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
            }
        }
        return b.append('"').toString();
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
