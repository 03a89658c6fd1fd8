package rtbox.regression.internal;

import java.util.Locale;

import rtbox.regression.Change;
import rtbox.regression.Comparison;
import rtbox.regression.ComparisonJson;
import rtbox.regression.Regression;
import rtbox.regression.Verdict;

/** The comparison as text: one line per cell and figure, then the whole verdict. */
public final class VerdictTable {
    private VerdictTable() {
    }

    public static String text(Comparison c) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "# %s: set A %d runs, set B %d runs; B - A with its %s %% interval"
                + " (bootstrap over runs, %,d resamples)%n", c.plan() == null ? "single runs" : "plan " + c.plan(),
                c.runsA().size(), c.runsB().size(), num(c.confidence() * 100), c.resamples()));
        b.append(String.format(Locale.ROOT, "%-20s %-16s %4s %4s %11s %11s %11s %-25s %8s %8s  %s%n", "cell",
                "figure", "nA", "nB", "mean A", "mean B", "B - A", "interval", "change", "effect", "verdict"));
        for (Change x : c.changes()) {
            String interval = Double.isNaN(x.low()) ? "-" : "[" + num(x.low()) + ", " + num(x.high()) + "]";
            String verdict = x.verdict().label();
            if (x.verdict() == Verdict.TOO_FEW_RUNS) {
                verdict += " (" + Regression.MIN_RUNS + " per set at least; about " + x.runsNeeded()
                        + " per set to tell this difference)";
            } else if (x.verdict() == Verdict.NO_CHANGE && x.runsNeeded() > 0) {
                verdict += " (about " + x.runsNeeded() + " runs per set would tell a difference this large)";
            }
            b.append(String.format(Locale.ROOT, "%-20s %-16s %4d %4d %11s %11s %11s %-25s %8s %8s  %s%n", x.cell(),
                    x.figure().label() + (x.figure().unit().isEmpty() ? "" : " (" + x.figure().unit() + ")"),
                    x.runsA(), x.runsB(), num(x.meanA()), num(x.meanB()), signed(x.difference()), interval,
                    Double.isNaN(x.relative()) ? "-" : signed(x.relative() * 100) + "%",
                    Double.isNaN(x.effectSize()) ? "-" : "d " + num(x.effectSize()), verdict));
        }
        for (String note : c.notes()) {
            b.append("# ").append(note).append('\n');
        }
        b.append(c.verdict().label()).append(": B against A");
        long regressed = c.changes().stream().filter(x -> x.verdict() == Verdict.REGRESSED).count();
        long improved = c.changes().stream().filter(x -> x.verdict() == Verdict.IMPROVED).count();
        b.append(String.format(Locale.ROOT, " (%d of %d figures regressed, %d improved, n = %d + %d)%n", regressed,
                c.changes().size(), improved, c.runsA().size(), c.runsB().size()));
        return b.toString();
    }

    static String num(double v) {
        return ComparisonJson.format(v);
    }

    private static String signed(double v) {
        return (v > 0 ? "+" : "") + num(v);
    }
}
