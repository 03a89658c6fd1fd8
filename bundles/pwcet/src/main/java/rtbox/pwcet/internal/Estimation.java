package rtbox.pwcet.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import rtbox.api.result.PwcetCheck;
import rtbox.api.result.PwcetEstimate;
import rtbox.api.result.PwcetFit;
import rtbox.api.result.PwcetLevel;

/**
 * One estimate from one series of block maxima: the checks first; only when every one held,
 * the fits and the levels. Which fit the levels come from: Gumbel, unless the GEV's shape is
 * above 0 with 95 % confidence (a heavy tail, which Gumbel would understate). A bounded tail
 * (shape below 0 with 95 % confidence) is said, with its end point, and the levels stay
 * Gumbel's, which lie above a bounded tail: the conservative side for a worst case.
 */
public final class Estimation {
    /** The probabilities every estimate states its levels at, per sample and per hour. */
    public static final double[] PROBABILITIES = {1e-6, 1e-9, 1e-12};
    static final double HOUR_NS = 3600e9;

    private Estimation() {
    }

    /**
     * @param maxima block maxima in ns, in time order
     * @param causes each maximum's cause ("ordinary" under the spike threshold)
     * @param intervalNs the run's interval, for "per hour"; 0 when the probe has none
     * @param alsoPerHour more per-hour probabilities to state levels at (a plan's threshold)
     */
    public static PwcetEstimate estimate(String scope, long[] maxima, List<String> causes, long blockSamples,
            long intervalNs, double... alsoPerHour) {
        double[] x = new double[maxima.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = maxima[i];
        }
        List<PwcetCheck> checks = new ArrayList<>();
        checks.add(Applicability.blocks(x.length, blockSamples));
        if (checks.get(0).passed()) {
            if (allEqual(x)) {
                checks.add(new PwcetCheck("fit", null, null, false,
                        "the block maxima are all equal: no spread to fit"));
            } else {
                checks.add(Applicability.independence(x));
                checks.add(Applicability.identical(x));
                checks.add(Applicability.tailCauses(x, causes));
            }
        }
        String refusal = refusal(checks);
        if (refusal != null) {
            return refused(scope, maxima, causes, checks, refusal);
        }
        GevFit gumbel, gev;
        try {
            gumbel = GevFit.gumbel(x);
            gev = GevFit.gev(x);
        } catch (IllegalArgumentException | ArithmeticException e) {
            checks.add(new PwcetCheck("fit", null, null, false, "no fit: " + e.getMessage()));
            return refused(scope, maxima, causes, checks, refusal(checks));
        } catch (RuntimeException e) {
            // Hipparchus's own exceptions (no convergence within the evaluations allowed).
            checks.add(new PwcetCheck("fit", null, null, false, "no fit: the likelihood's maximum was not"
                    + " found"));
            return refused(scope, maxima, causes, checks, refusal(checks));
        }
        double[] ci = gev.shapeInterval();
        String tail = tail(gev);
        GevFit used = levelsFrom(tail, gumbel, gev);
        double deviance = 2 * (gev.logLikelihood - gumbel.logLikelihood);
        checks.add(new PwcetCheck("fit", gev.shape, null, true, String.format(Locale.ROOT,
                "GEV shape %.3f (95 %% CI %.3f to %.3f): %s tail%s; levels from the %s fit (deviance GEV vs Gumbel %.2f)",
                gev.shape, ci[0], ci[1], tail, tail.equals("bounded") ? String.format(Locale.ROOT,
                        ", end point %.1f us", gev.upperEnd() / 1000) : "", used.gumbel ? "Gumbel" : "GEV", deviance)));
        List<PwcetLevel> levels = new ArrayList<>();
        TreeSet<Double> perHour = new TreeSet<>(java.util.Comparator.reverseOrder());
        for (double p : PROBABILITIES) {
            levels.add(level(used, p, "sample", -blockSamples * Math.log1p(-p)));
            perHour.add(p);
        }
        for (double p : alsoPerHour) {
            if (p > 0 && p < 1) {
                perHour.add(p);
            }
        }
        if (intervalNs > 0) {
            double blocksPerHour = HOUR_NS / ((double) intervalNs * blockSamples);
            for (double p : perHour) {
                levels.add(level(used, p, "hour", -Math.log1p(-p) / blocksPerHour));
            }
        }
        double rarest = Double.POSITIVE_INFINITY; // as a block's exceedance probability
        for (PwcetLevel l : levels) {
            rarest = Math.min(rarest, l.per().equals("sample") ? -blockSamples * Math.log1p(-l.probability())
                    : -Math.log1p(-l.probability()) * intervalNs * blockSamples / HOUR_NS);
        }
        List<PwcetLevel> curve = new ArrayList<>();
        for (int k = 1; ; k++) {
            double q = Math.pow(10, -k / 4.0);
            curve.add(level(used, q, "block", -Math.log1p(-q)));
            if (q <= rarest) {
                break;
            }
        }
        return new PwcetEstimate(scope, maxima.length, maxima, causes, checks, true, null, fit(gumbel), fit(gev),
                used.gumbel ? "gumbel" : "gev", tail, gev.upperEnd() == Double.POSITIVE_INFINITY ? 0 : gev.upperEnd(),
                levels, curve);
    }

    /** The tail the GEV shape's 95 % interval says: "heavy" (above 0), "bounded" (below) or "exponential". */
    public static String tail(GevFit gev) {
        double[] ci = gev.shapeInterval();
        return ci[0] > 0 ? "heavy" : ci[1] < 0 ? "bounded" : "exponential";
    }

    /**
     * The fit the levels come from: the GEV for a heavy tail, else Gumbel (above a bounded tail,
     * the conservative side for a worst case, and the simpler model when the data cannot tell).
     */
    public static GevFit levelsFrom(String tail, GevFit gumbel, GevFit gev) {
        return tail.equals("heavy") ? gev : gumbel;
    }

    private static PwcetLevel level(GevFit fit, double p, String per, double y) {
        double[] l = fit.levelWithInterval(y);
        return new PwcetLevel(p, per, l[0], l[1], l[2]);
    }

    private static PwcetFit fit(GevFit f) {
        double[] ci = f.shapeInterval();
        return new PwcetFit(f.location, f.scale, f.shape, ci[0], ci[1], f.logLikelihood);
    }

    private static PwcetEstimate refused(String scope, long[] maxima, List<String> causes, List<PwcetCheck> checks,
            String refusal) {
        return new PwcetEstimate(scope, maxima.length, maxima, causes, checks, false, refusal, null, null, null, null, 0,
                List.of(), List.of());
    }

    /** "not applicable: " and the first failed check's finding; null when all held. */
    static String refusal(List<PwcetCheck> checks) {
        for (PwcetCheck c : checks) {
            if (!c.passed()) {
                return "not applicable: " + c.detail();
            }
        }
        return null;
    }

    private static boolean allEqual(double[] x) {
        for (double v : x) {
            if (v != x[0]) {
                return false;
            }
        }
        return true;
    }
}
