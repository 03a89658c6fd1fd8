package rtbox.regression.internal;

import org.hipparchus.random.RandomGenerator;
import org.hipparchus.random.Well19937c;
import org.hipparchus.stat.descriptive.rank.Percentile;
import org.hipparchus.stat.descriptive.rank.Percentile.EstimationType;

/**
 * The percentile bootstrap of a difference of means over runs (Efron and Tibshirani, An
 * Introduction to the Bootstrap, 1993, ch. 13): each set is resampled with replacement to its
 * own size, the difference of the resamples' means is kept, and the interval is the
 * (1 - c) / 2 and (1 + c) / 2 percentiles of those differences. The random numbers (Hipparchus's
 * Well19937c) and the percentiles (Hipparchus's Percentile, R's type 1: a value that occurred,
 * no interpolation between resamples) are the library's; only the drawing of indices is here,
 * since neither Hipparchus nor Commons Math has a bootstrap.
 */
public final class Bootstrap {
    /** Fixed: the same two sets give the same interval wherever they are compared. */
    static final long SEED = 35L;

    private Bootstrap() {
    }

    /** {low, high} of B - A at the given confidence. */
    public static double[] differenceOfMeans(double[] a, double[] b, double confidence, int resamples) {
        RandomGenerator random = new Well19937c(SEED);
        double[] differences = new double[resamples];
        for (int i = 0; i < resamples; i++) {
            differences[i] = resampledMean(b, random) - resampledMean(a, random);
        }
        Percentile p = new Percentile().withEstimationType(EstimationType.R_1);
        p.setData(differences);
        double tail = (1 - confidence) / 2 * 100;
        return new double[] {p.evaluate(tail), p.evaluate(100 - tail)};
    }

    private static double resampledMean(double[] x, RandomGenerator random) {
        double sum = 0;
        for (int i = 0; i < x.length; i++) {
            sum += x[random.nextInt(x.length)];
        }
        return sum / x.length;
    }
}
