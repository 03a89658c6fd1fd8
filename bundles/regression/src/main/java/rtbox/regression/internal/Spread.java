package rtbox.regression.internal;

import org.hipparchus.distribution.continuous.NormalDistribution;
import org.hipparchus.stat.StatUtils;
import org.hipparchus.stat.inference.TTest;

/** The runs' own spread: means, the pooled standard deviation, Cohen's d, the runs a difference needs. */
public final class Spread {
    /** The power with which {@link #runsNeeded} would tell the difference: the usual 80 %. */
    static final double POWER = 0.8;
    private static final NormalDistribution NORMAL = new NormalDistribution();

    private Spread() {
    }

    public static double mean(double[] x) {
        return x.length == 0 ? Double.NaN : StatUtils.mean(x);
    }

    /** sqrt(((nA - 1) sA^2 + (nB - 1) sB^2) / (nA + nB - 2)), with the sample variances. */
    public static double pooledSd(double[] a, double[] b) {
        double va = StatUtils.variance(a), vb = StatUtils.variance(b);
        return Math.sqrt(((a.length - 1) * va + (b.length - 1) * vb) / (a.length + b.length - 2));
    }

    /**
     * Two-sided p of Student's t-test with the pooled variance (Hipparchus's TTest), the same
     * pooled spread as the effect size shows. Not Welch's: where one set does not spread at all
     * (0 missed deadlines in every A run, 40 to 60 in every B run) Welch's degrees of freedom fall
     * to those of the other set alone (2 of 3 runs), and such a change was NO CHANGE.
     */
    public static double tTestP(double[] a, double[] b) {
        return new TTest().homoscedasticTTest(a, b);
    }

    /** Cohen's d; NaN when the runs do not spread (or the spread is unknown). */
    public static double effectSize(double difference, double pooledSd) {
        return pooledSd > 0 ? difference / pooledSd : Double.NaN;
    }

    /**
     * Runs per set that a two-sided test at this confidence would need to tell a difference of
     * this size from runs spread this much with 80 % power: 2 (z(1 - alpha/2) + z(power))^2
     * (sd / difference)^2, rounded up (the normal approximation: a lower bound for the few runs
     * it is asked about). 0 without a difference; 1 when the runs do not spread.
     */
    public static int runsNeeded(double difference, double pooledSd, double confidence) {
        if (difference == 0 || Double.isNaN(difference)) {
            return 0;
        }
        if (Double.isNaN(pooledSd)) {
            return 0;
        }
        if (pooledSd == 0) {
            return 1;
        }
        double z = NORMAL.inverseCumulativeProbability(1 - (1 - confidence) / 2)
                + NORMAL.inverseCumulativeProbability(POWER);
        double n = 2 * z * z * (pooledSd / difference) * (pooledSd / difference);
        return (int) Math.min(Integer.MAX_VALUE, Math.ceil(n));
    }
}
