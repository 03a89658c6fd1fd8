package rtbox.pwcet.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hipparchus.distribution.continuous.ChiSquaredDistribution;
import org.hipparchus.stat.inference.KolmogorovSmirnovTest;

import rtbox.api.result.PwcetCheck;

/**
 * The checks that make extreme value theory applicable to a run's block maxima (MBPTA's
 * i.i.d. tests, and the tail's causes, which they miss), each one a {@link PwcetCheck}.
 */
public final class Applicability {
    /** Fewer block maxima than this cannot be fitted with any confidence. */
    public static final int MIN_BLOCKS = 30;
    /** A test's p-value under this rejects its hypothesis. */
    public static final double ALPHA = 0.05;
    /** The tail: this share of the largest maxima (at least {@link #MIN_TAIL}). */
    static final double TAIL_SHARE = 0.2;
    static final int MIN_TAIL = 5;
    /** The tail is one cause's when that cause holds at least this share of it. */
    static final double ONE_CAUSE = 0.8;

    private Applicability() {
    }

    public static PwcetCheck blocks(int n, long blockSamples) {
        boolean ok = n >= MIN_BLOCKS;
        return new PwcetCheck("blocks", (double) n, null, ok, n + " block maxima of " + blockSamples + " samples"
                + (ok ? "" : ": at least " + MIN_BLOCKS + " are needed; run longer"));
    }

    /**
     * Independence: the Ljung-Box test on the maxima in time order, up to lag min(10, n/5). A
     * periodic disturbance or a drift correlates neighbouring blocks.
     */
    public static PwcetCheck independence(double[] x) {
        int n = x.length;
        int lags = Math.max(1, Math.min(10, n / 5));
        double mean = Arrays.stream(x).average().orElse(0);
        double c0 = 0;
        for (double v : x) {
            c0 += (v - mean) * (v - mean);
        }
        double q = 0;
        for (int k = 1; k <= lags; k++) {
            double ck = 0;
            for (int i = k; i < n; i++) {
                ck += (x[i] - mean) * (x[i - k] - mean);
            }
            double r = c0 == 0 ? 0 : ck / c0;
            q += r * r / (n - k);
        }
        q *= n * (n + 2.0);
        double p = 1 - new ChiSquaredDistribution(lags).cumulativeProbability(q);
        boolean ok = p >= ALPHA;
        return new PwcetCheck("independence", q, p, ok, "Ljung-Box over " + lags + " lags: Q = " + f(q) + ", p = "
                + p(p) + (ok ? "" : ": the block maxima are correlated"));
    }

    /** Identical distribution: two-sample Kolmogorov-Smirnov between the run's first and second half. */
    public static PwcetCheck identical(double[] x) {
        int half = x.length / 2;
        double[] a = Arrays.copyOfRange(x, 0, half), b = Arrays.copyOfRange(x, half, x.length);
        KolmogorovSmirnovTest ks = new KolmogorovSmirnovTest(1); // seeded: ties are broken the same way each time
        double d = ks.kolmogorovSmirnovStatistic(a, b);
        double p = ks.kolmogorovSmirnovTest(a, b);
        boolean ok = p >= ALPHA;
        return new PwcetCheck("identical distribution", d, p, ok, "Kolmogorov-Smirnov between the halves: D = "
                + f(d) + ", p = " + p(p) + (ok ? "" : ": the halves differ"));
    }

    /**
     * The tail's causes: the largest {@link #TAIL_SHARE} of the maxima, each with the cause of the
     * spike it was (or "ordinary"). A tail that mixes causes is a low-density mixture of
     * distributions, which the two tests above miss and one extreme value distribution does not fit
     * (the MBPTA literature's warning, e.g. ECRTS 2025's TailID): refused when no cause holds
     * {@link #ONE_CAUSE} of it.
     */
    public static PwcetCheck tailCauses(double[] x, List<String> causes) {
        Integer[] order = new Integer[x.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (i, j) -> Double.compare(x[j], x[i]));
        int tail = Math.min(x.length, Math.max(MIN_TAIL, (int) Math.ceil(x.length * TAIL_SHARE)));
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < tail; i++) {
            counts.merge(causes.get(order[i]), 1, Integer::sum);
        }
        int top = counts.values().stream().max(Integer::compare).orElse(0);
        double share = tail == 0 ? 1 : (double) top / tail;
        boolean ok = share >= ONE_CAUSE;
        StringBuilder by = new StringBuilder();
        counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
                .forEach(e -> by.append(by.length() == 0 ? "" : ", ").append(e.getValue()).append(' ').append(e.getKey()));
        return new PwcetCheck("tail causes", share, null, ok, "the largest " + tail + " block maxima: " + by
                + (ok ? "" : ": the tail mixes causes, which one extreme value distribution does not describe"));
    }

    static String f(double v) {
        return String.format(Locale.ROOT, "%.3g", v);
    }

    static String p(double v) {
        return v < 0.001 ? String.format(Locale.ROOT, "%.1g", v) : String.format(Locale.ROOT, "%.3f", v);
    }
}
