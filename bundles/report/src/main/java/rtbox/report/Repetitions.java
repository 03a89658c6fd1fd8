package rtbox.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * A plan that repeats its cells ({@code "repetitions"}, plans/README.md): each cell's figures
 * ({@link CellFigures}) as the median and the range over its repetitions. A repeated cell keeps
 * its name, so the cells of one name are its repetitions, in the order they ran. The median of
 * a handful of values is a sort and a middle; no library is needed for it.
 *
 * @since 1.4
 */
public final class Repetitions {
    private Repetitions() {
    }

    /** One figure over a cell's repetitions. */
    public record Spread(double median, double min, double max) {
        static Spread of(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            int n = s.length;
            double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
            return new Spread(median, s[0], s[n - 1]);
        }
    }

    /**
     * One cell: how many of its repetitions have figures (an ERROR cell has none), of how many
     * that ran; its figures' spreads ({@code xruns} null where the probe does not count them,
     * every spread null when no repetition has figures).
     */
    public record Row(String cell, int runs, int measured, Spread p50Us, Spread p99Us, Spread p999Us, Spread maxUs,
            Spread missedDeadlines, Spread xruns) {
    }

    /** True when some cell of the run ran more than once. */
    public static boolean applies(PlanRun run) {
        return rows(run).stream().anyMatch(r -> r.runs() > 1);
    }

    /** Every cell of the run, in the order of their first run. */
    public static List<Row> rows(PlanRun run) {
        Map<String, List<CellResult>> byName = new LinkedHashMap<>();
        for (CellResult c : run.cells()) {
            byName.computeIfAbsent(c.name(), k -> new ArrayList<>()).add(c);
        }
        List<Row> out = new ArrayList<>();
        byName.forEach((name, cells) -> {
            List<CellFigures> f = cells.stream().map(c -> CellFigures.of(c.report())).filter(x -> x != null).toList();
            List<CellFigures> withXruns = f.stream().filter(x -> x.xruns() != null).toList();
            out.add(new Row(name, cells.size(), f.size(), spread(f, CellFigures::p50Us), spread(f, CellFigures::p99Us),
                    spread(f, CellFigures::p999Us), spread(f, CellFigures::maxUs),
                    spread(f, x -> x.missedDeadlines()), spread(withXruns, x -> x.xruns())));
        });
        return out;
    }

    private static Spread spread(List<CellFigures> f, ToDoubleFunction<CellFigures> figure) {
        return f.isEmpty() ? null : Spread.of(f.stream().mapToDouble(figure).toArray());
    }

    /** The table: per cell, each figure as "median [min-max]". */
    public static String text(PlanRun run) {
        List<Row> rows = rows(run);
        boolean xruns = rows.stream().anyMatch(r -> r.xruns() != null);
        List<String[]> lines = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("cell", "runs", "p50 (us)", "p99 (us)", "p99.9 (us)", "max (us)",
                "missed"));
        if (xruns) {
            head.add("xruns");
        }
        lines.add(head.toArray(new String[0]));
        for (Row r : rows) {
            List<String> l = new ArrayList<>(List.of(r.cell(), r.measured() == r.runs() ? Integer.toString(r.runs())
                    : r.measured() + " of " + r.runs(), text(r.p50Us()), text(r.p99Us()), text(r.p999Us()),
                    text(r.maxUs()), text(r.missedDeadlines())));
            if (xruns) {
                l.add(text(r.xruns()));
            }
            lines.add(l.toArray(new String[0]));
        }
        int[] w = new int[head.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                w[i] = Math.max(w[i], l[i].length());
            }
        }
        StringBuilder b = new StringBuilder("Repetitions: each figure as median [min-max] over the cell's runs\n");
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                boolean last = i + 1 == l.length;
                b.append(String.format(Locale.ROOT, i == 0 ? "%-" + w[i] + "s" : "%" + w[i] + "s", l[i]))
                        .append(last ? "" : "  ");
            }
            b.append('\n');
        }
        return b.toString();
    }

    static String text(Spread s) {
        if (s == null) {
            return "-";
        }
        return number(s.median()) + " [" + number(s.min()) + "-" + number(s.max()) + "]";
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.1f", v);
    }
}
