package rtbox.regression;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import rtbox.regression.internal.Bootstrap;
import rtbox.regression.internal.Spread;

/**
 * The one comparison of two sets of runs (README.md: what is measured). Per cell and figure:
 * the difference of the means B - A, its confidence interval by a bootstrap over runs (each set
 * resampled with replacement, the same fixed seed for every figure, so the same sets give the
 * same numbers in every front end), Cohen's d, Student's t-test (pooled variance), and the verdict:
 * REGRESSED or IMPROVED when the interval excludes 0 and the test's p is below (1 - confidence)
 * over the cell's number of figures, NO CHANGE otherwise, TOO FEW RUNS below {@link #MIN_RUNS} runs in
 * a set, with the runs per set that a difference of the size seen would need.
 */
public final class Regression {
    /** Fewer runs in a set, and its spread cannot be told: two runs are a pair, not a set. */
    public static final int MIN_RUNS = 3;
    /** Several figures and cells are judged at once: 99 % keeps the false alarms of the whole rare. */
    public static final double DEFAULT_CONFIDENCE = 0.99;
    public static final int DEFAULT_RESAMPLES = 10_000;

    private Regression() {
    }

    /** {@link #compare(List, List, double, int)} at 99 % with 10,000 resamples. */
    public static Comparison compare(List<RunFigures> a, List<RunFigures> b) {
        return compare(a, b, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES);
    }

    /**
     * Compares set B with set A. An IllegalArgumentException when a set is empty, the runs are
     * of different plans, the sets have no cell in common, or a parameter is out of range.
     */
    public static Comparison compare(List<RunFigures> a, List<RunFigures> b, double confidence, int resamples) {
        if (a.isEmpty() || b.isEmpty()) {
            throw new IllegalArgumentException("set " + (a.isEmpty() ? "A" : "B") + " has no runs");
        }
        if (!(confidence > 0.5 && confidence < 1)) {
            throw new IllegalArgumentException("confidence " + confidence + " is out of range: between 0.5 and 1,"
                    + " e.g. 0.99");
        }
        if (resamples < 1000 || resamples > 1_000_000) {
            throw new IllegalArgumentException("resamples " + resamples + " is out of range 1000-1000000");
        }
        String plan = a.get(0).plan();
        for (RunFigures r : concat(a, b)) {
            if (!Objects.equals(plan, r.plan())) {
                throw new IllegalArgumentException(r.source() + " is " + what(r.plan()) + ", "
                        + a.get(0).source() + " " + what(plan) + ": both sets must be runs of the same plan");
            }
        }
        Set<String> cellsA = cells(a), cellsB = cells(b);
        List<String> notes = new ArrayList<>();
        List<Change> changes = new ArrayList<>();
        for (String cell : cellsA) {
            if (!cellsB.contains(cell)) {
                notes.add("cell " + cell + " is only in set A");
                continue;
            }
            List<Figure> figures = new ArrayList<>();
            for (Figure f : Figure.values()) {
                if (values(a, cell, f).length > 0 || values(b, cell, f).length > 0) {
                    figures.add(f);
                }
            }
            for (Figure f : figures) {
                changes.add(change(cell, f, values(a, cell, f), values(b, cell, f), confidence, resamples,
                        figures.size()));
            }
        }
        for (String cell : cellsB) {
            if (!cellsA.contains(cell)) {
                notes.add("cell " + cell + " is only in set B");
            }
        }
        if (changes.isEmpty()) {
            throw new IllegalArgumentException("the sets have no cell in common (A: " + cellsA + ", B: " + cellsB + ")");
        }
        return new Comparison(plan, sources(a), sources(b), confidence, resamples, changes, notes, whole(changes));
    }

    /** One figure judged alone: {@link #change(String, Figure, double[], double[], double, int, int)} of 1. */
    public static Change change(String cell, Figure figure, double[] a, double[] b, double confidence,
            int resamples) {
        return change(cell, figure, a, b, confidence, resamples, 1);
    }

    /**
     * One figure of a cell whose {@code figures} figures are judged together: the statistics on
     * two samples of it, one value per run. The test's level is (1 - confidence) / figures
     * (Bonferroni), so that a cell's false alarms stay within 1 - confidence.
     */
    public static Change change(String cell, Figure figure, double[] a, double[] b, double confidence,
            int resamples, int figures) {
        double meanA = Spread.mean(a), meanB = Spread.mean(b);
        double diff = meanB - meanA;
        double relative = meanA == 0 ? Double.NaN : diff / meanA;
        double level = 1 - (1 - confidence) / Math.max(1, figures);
        if (a.length < MIN_RUNS || b.length < MIN_RUNS) {
            double sd = a.length >= 2 && b.length >= 2 ? Spread.pooledSd(a, b) : Double.NaN;
            int needed = Math.max(MIN_RUNS, Spread.runsNeeded(diff, sd, level));
            return new Change(cell, figure, a.length, b.length, meanA, meanB, diff, Double.NaN, Double.NaN,
                    Spread.effectSize(diff, sd), relative, Double.NaN, Verdict.TOO_FEW_RUNS, needed);
        }
        double[] interval = Bootstrap.differenceOfMeans(a, b, confidence, resamples);
        double sd = Spread.pooledSd(a, b);
        // The percentile bootstrap over 3 to 5 runs is narrower than its level (it cannot see
        // spread that its few runs did not show): alone it called 6 of 20 splits of runs of one
        // setting on this VM a change (README). Student's t-test must agree too, at the cell's
        // Bonferroni level. Runs that do not spread at all (0 missed deadlines in each) have no
        // test: the interval decides.
        double p = sd > 0 ? Spread.tTestP(a, b) : (diff == 0 ? 1 : 0);
        boolean beyondNoise = p < 1 - level;
        Verdict v = beyondNoise && interval[0] > 0 ? Verdict.REGRESSED
                : beyondNoise && interval[1] < 0 ? Verdict.IMPROVED : Verdict.NO_CHANGE;
        // The normal approximation can be below the runs already there, where the bootstrap still
        // did not tell: then at least one more run per set.
        int needed = v != Verdict.NO_CHANGE || diff == 0 ? 0
                : Math.max(Math.max(a.length, b.length) + 1, Spread.runsNeeded(diff, sd, level));
        return new Change(cell, figure, a.length, b.length, meanA, meanB, diff, interval[0], interval[1],
                Spread.effectSize(diff, sd), relative, p, v, needed);
    }

    private static Verdict whole(List<Change> changes) {
        for (Verdict v : List.of(Verdict.REGRESSED, Verdict.TOO_FEW_RUNS, Verdict.IMPROVED)) {
            if (changes.stream().anyMatch(c -> c.verdict() == v)) {
                return v;
            }
        }
        return Verdict.NO_CHANGE;
    }

    private static double[] values(List<RunFigures> runs, String cell, Figure f) {
        return runs.stream().map(r -> r.cells().get(cell)).filter(Objects::nonNull).map(m -> m.get(f))
                .filter(Objects::nonNull).mapToDouble(Double::doubleValue).toArray();
    }

    private static Set<String> cells(List<RunFigures> runs) {
        Set<String> s = new LinkedHashSet<>();
        runs.forEach(r -> s.addAll(r.cells().keySet()));
        return s;
    }

    private static List<String> sources(List<RunFigures> runs) {
        return runs.stream().map(RunFigures::source).toList();
    }

    private static List<RunFigures> concat(List<RunFigures> a, List<RunFigures> b) {
        List<RunFigures> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String what(String plan) {
        return plan == null ? "a single run" : "a run of plan '" + plan + "'";
    }
}
