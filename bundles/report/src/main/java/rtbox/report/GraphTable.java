package rtbox.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.result.RunEvent;
import rtbox.api.result.RunReport;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * Seed 004's table for a plan's graph cells (rtbox.probe.graph): Delay Maximum and XRUN
 * count per cell, as jack_test reported them, the DSP load, whether emulated or native ISO
 * demoted the graph and when, and beside them the figures the seed's thread published for
 * the same policy (Jack O'Quin's runs of jackd with 14 clients, January 2005).
 */
final class GraphTable {
    private GraphTable() {
    }

    /** The seed's published figures for a policy and load, or what the thread said instead of figures. */
    static String seed(String policy, boolean compile) {
        String p = policy == null ? "" : policy.toLowerCase(Locale.ROOT);
        int colon = p.indexOf(':');
        if (colon >= 0) {
            p = p.substring(0, colon);
        }
        switch (p + (compile ? "+compile" : "")) {
            case "fifo":
                return "199-347 us, 0 xruns (6 runs)";
            case "fifo+compile":
                return "269-579 us, 0-4 xruns (8 runs)";
            case "iso@70": case "iso":
                return "341-33894 us, 17-26 xruns (3 runs)";
            case "iso@70+compile": case "iso+compile":
                return "14549-38961 us, 22-44 xruns (3 runs)";
            case "iso@90":
                return "not posted (xruns in 2 of 3 runs)";
            case "iso@90+compile":
                return "not posted (\"way too many xruns\")";
            case "iso@100":
                return "not posted (clean after start-up)";
            case "iso@100+compile":
                return "not posted (bad xruns, long delays)";
            default:
                return "-";
        }
    }

    /** True when a cell of the run measured the graph. */
    static boolean applies(PlanRun run) {
        return run.cells().stream().anyMatch(c -> "graph".equals(c.probe()));
    }

    static String text(PlanRun run) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"graph cell", "Delay Maximum (us)", "XRUN count", "DSP load mean/max (%)", "ISO demoted",
            "seed 004 (2005): Delay Maximum, XRUN count"});
        for (CellResult c : run.cells()) {
            if (!"graph".equals(c.probe())) {
                continue;
            }
            RunReport r = c.report();
            Map<String, Double> f = r == null || r.result() == null ? Map.of() : r.result().figures();
            rows.add(new String[] {c.name(), number(f.get("delay_max_us"), "%.0f"), number(f.get("xruns"), "%.0f"),
                number(f.get("dsp_load_pct"), "%.1f") + " / " + number(f.get("dsp_load_max_pct"), "%.1f"),
                demoted(r, f), seed(c.policy(), !c.loads().isEmpty())});
        }
        int[] w = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                w[i] = Math.max(w[i], row[i].length());
            }
        }
        StringBuilder b = new StringBuilder("Seed 004's table (graph cells; the seed: jackd + 14 clients, Jack O'Quin, "
                + "January 2005):\n");
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                boolean last = i + 1 == row.length;
                boolean numeric = i == 1 || i == 2;
                b.append(String.format(Locale.ROOT, numeric ? "%" + w[i] + "s" : last ? "%s" : "%-" + w[i] + "s",
                        row[i])).append(last ? "" : "  ");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** "no", "-" (not ISO), or how often and from when: "3 times, first at 8.57 s (2 xruns while demoted)". */
    private static String demoted(RunReport r, Map<String, Double> f) {
        Double n = f.get("iso_demotions");
        if (n == null) {
            return "-";
        }
        if (n == 0) {
            return "no";
        }
        long first = -1;
        for (RunEvent e : r.events()) {
            if (e.kind().equals("iso.demote")) {
                first = e.offsetNs();
                break;
            }
        }
        Double during = f.get("xruns_demoted");
        return String.format(Locale.ROOT, "%.0f time%s%s%s", n, n == 1 ? "" : "s",
                first < 0 ? "" : String.format(Locale.ROOT, ", first at %.2f s", first / 1e9),
                during == null ? "" : String.format(Locale.ROOT, " (%.0f xruns while demoted)", during));
    }

    private static String number(Double v, String format) {
        return v == null ? "-" : String.format(Locale.ROOT, format, v);
    }
}
