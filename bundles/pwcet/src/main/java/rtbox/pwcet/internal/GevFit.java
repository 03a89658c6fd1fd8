package rtbox.pwcet.internal;

import org.hipparchus.analysis.solvers.BrentSolver;
import org.hipparchus.linear.Array2DRowRealMatrix;
import org.hipparchus.linear.CholeskyDecomposition;
import org.hipparchus.linear.RealMatrix;
import org.hipparchus.optim.InitialGuess;
import org.hipparchus.optim.MaxEval;
import org.hipparchus.optim.PointValuePair;
import org.hipparchus.optim.nonlinear.scalar.GoalType;
import org.hipparchus.optim.nonlinear.scalar.ObjectiveFunction;
import org.hipparchus.optim.nonlinear.scalar.noderiv.NelderMeadSimplex;
import org.hipparchus.optim.nonlinear.scalar.noderiv.SimplexOptimizer;

/**
 * A generalised extreme value distribution (or its Gumbel case, shape 0) fitted to block maxima
 * by maximum likelihood, with the parameters' covariance from the observed information (the
 * inverse Hessian of the negative log-likelihood at the maximum), as Coles (2001, ch. 3) does.
 * Fitted on the maxima standardised (mean 0, standard deviation 1), so that one tolerance suits
 * nanoseconds and sea levels alike; the parameters and covariance are scaled back.
 *
 * <p>Levels are asked by {@code y = -ln G}, G the probability that a block's maximum stays under
 * the level: a block's exceedance probability q is {@code y = -ln(1 - q)}; for rarer events the
 * caller computes y with log1p, so that 1e-12 is not lost to rounding.
 */
public final class GevFit {
    /** Two-sided 95 % normal quantile. */
    static final double Z95 = 1.959963984540054;

    public final boolean gumbel;
    public final double location, scale, shape;
    /** Covariance of (location, scale[, shape]). */
    final double[][] cov;
    public final double logLikelihood;

    private GevFit(boolean gumbel, double location, double scale, double shape, double[][] cov, double logLikelihood) {
        this.gumbel = gumbel;
        this.location = location;
        this.scale = scale;
        this.shape = shape;
        this.cov = cov;
        this.logLikelihood = logLikelihood;
    }

    /** The Gumbel fit (shape 0). @throws IllegalArgumentException when the maxima do not allow one */
    public static GevFit gumbel(double[] x) {
        double[] z = Standard.of(x).apply(x);
        // The likelihood equation in the scale alone (Coles 2001, 3.3.2 with shape 0):
        // sigma = mean(z) - sum(z e^(-z/sigma)) / sum(e^(-z/sigma)); then the location follows.
        double min = Double.POSITIVE_INFINITY;
        for (double v : z) {
            min = Math.min(min, v);
        }
        final double zmin = min;
        double s = new BrentSolver(1e-14).solve(10_000, sigma -> {
            double a = 0, b = 0;
            for (double v : z) {
                double e = Math.exp(-(v - zmin) / sigma);
                a += v * e;
                b += e;
            }
            return sigma - mean(z) + a / b;
        }, 1e-3, 20);
        double sum = 0;
        for (double v : z) {
            sum += Math.exp(-(v - zmin) / s);
        }
        double mu = zmin - s * Math.log(sum / z.length);
        return finish(true, x, new double[] {mu, s});
    }

    /** The GEV fit. @throws IllegalArgumentException when the likelihood has no proper maximum */
    public static GevFit gev(double[] x) {
        double[] z = Standard.of(x).apply(x);
        GevFit g = gumbel(x);
        Standard st = Standard.of(x);
        double mu0 = (g.location - st.mean) / st.sd, s0 = g.scale / st.sd;
        PointValuePair best = null;
        for (double xi0 : new double[] {0.05, -0.1, 0.3}) {
            PointValuePair p = minimise(z, new double[] {mu0, Math.log(s0), xi0});
            p = minimise(z, p.getPoint()); // a restart: Nelder-Mead may stop on a ridge
            if (best == null || p.getValue() < best.getValue()) {
                best = p;
            }
        }
        double[] t = best.getPoint();
        return finish(false, x, new double[] {t[0], Math.exp(t[1]), t[2]});
    }

    private static PointValuePair minimise(double[] z, double[] start) {
        SimplexOptimizer o = new SimplexOptimizer(1e-13, 1e-15);
        return o.optimize(new MaxEval(40_000), new ObjectiveFunction(t -> nll(z, t[0], Math.exp(t[1]), t[2])),
                GoalType.MINIMIZE, new InitialGuess(start), new NelderMeadSimplex(new double[] {0.1, 0.1, 0.05}));
    }

    /** Parameters found on standardised maxima, their information, both scaled back to x. */
    private static GevFit finish(boolean gumbel, double[] x, double[] theta) {
        Standard st = Standard.of(x);
        double[] z = st.apply(x);
        int k = theta.length;
        double[][] h = hessian(z, theta);
        RealMatrix info = new Array2DRowRealMatrix(h);
        RealMatrix inv;
        try {
            inv = new CholeskyDecomposition(info, 1e-12, 1e-14).getSolver().getInverse();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the likelihood has no proper maximum (its information is not positive"
                    + " definite)");
        }
        double[] scaleBack = k == 2 ? new double[] {st.sd, st.sd} : new double[] {st.sd, st.sd, 1};
        double[][] cov = new double[k][k];
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < k; j++) {
                cov[i][j] = inv.getEntry(i, j) * scaleBack[i] * scaleBack[j];
            }
        }
        double xi = k == 2 ? 0 : theta[2];
        double ll = -nll(z, theta[0], theta[1], xi) - x.length * Math.log(st.sd);
        return new GevFit(gumbel, st.mean + st.sd * theta[0], st.sd * theta[1], xi, cov, ll);
    }

    /** Central-difference Hessian of the negative log-likelihood in (location, scale[, shape]). */
    private static double[][] hessian(double[] z, double[] t) {
        int k = t.length;
        double[][] h = new double[k][k];
        double[] step = new double[k];
        for (int i = 0; i < k; i++) {
            step[i] = 1e-4 * Math.max(Math.abs(t[i]), 0.1);
        }
        for (int i = 0; i < k; i++) {
            for (int j = i; j < k; j++) {
                double v = (f(z, t, i, step[i], j, step[j]) - f(z, t, i, step[i], j, -step[j])
                        - f(z, t, i, -step[i], j, step[j]) + f(z, t, i, -step[i], j, -step[j]))
                        / (4 * step[i] * step[j]);
                h[i][j] = v;
                h[j][i] = v;
            }
        }
        return h;
    }

    private static double f(double[] z, double[] t, int i, double di, int j, double dj) {
        double[] u = t.clone();
        u[i] += di;
        u[j] += dj;
        return nll(z, u[0], u[1], u.length == 2 ? 0 : u[2]);
    }

    /**
     * The negative log-likelihood of a GEV(mu, sigma, xi); the Gumbel form within 1e-7 of xi = 0;
     * infinite outside the support and for xi <= -1, where the maximum likelihood estimate does not
     * exist (the likelihood grows without bound at the sample's maximum: Smith 1985).
     */
    static double nll(double[] z, double mu, double sigma, double xi) {
        if (!(sigma > 0) || xi <= -1) {
            return Double.POSITIVE_INFINITY;
        }
        double sum = z.length * Math.log(sigma);
        if (Math.abs(xi) < 1e-7) {
            for (double v : z) {
                double w = (v - mu) / sigma;
                sum += w + Math.exp(-w);
            }
            return sum;
        }
        for (double v : z) {
            double t = 1 + xi * (v - mu) / sigma;
            if (!(t > 0)) {
                return Double.POSITIVE_INFINITY;
            }
            double lt = Math.log(t);
            sum += (1 + 1 / xi) * lt + Math.exp(-lt / xi);
        }
        return sum;
    }

    /** The level a block's maximum exceeds with -ln G = y. */
    public double level(double y) {
        return gumbel || shape == 0 ? location - scale * Math.log(y)
                : location + scale / shape * (Math.exp(-shape * Math.log(y)) - 1);
    }

    /** The level for y with its 95 % confidence interval by the delta method: {level, low, high}. */
    public double[] levelWithInterval(double y) {
        double ly = Math.log(y);
        double[] grad;
        if (gumbel) {
            grad = new double[] {1, -ly};
        } else {
            double p = Math.exp(-shape * ly); // y^-xi
            grad = new double[] {1, (p - 1) / shape, -scale / (shape * shape) * (p - 1) - scale / shape * p * ly};
        }
        double var = 0;
        for (int i = 0; i < grad.length; i++) {
            for (int j = 0; j < grad.length; j++) {
                var += grad[i] * cov[i][j] * grad[j];
            }
        }
        double x = level(y), half = Z95 * Math.sqrt(Math.max(var, 0));
        // The delta method's interval is symmetric; far out on a heavy tail its lower end goes below
        // zero, which no latency is: clipped there (a profile-likelihood interval would be skewed).
        return new double[] {x, Math.max(0, x - half), x + half};
    }

    /** Standard error of a parameter: 0 location, 1 scale, 2 shape. */
    public double standardError(int i) {
        return i < cov.length ? Math.sqrt(cov[i][i]) : 0;
    }

    /** The shape's 95 % confidence interval ({0, 0} for Gumbel). */
    public double[] shapeInterval() {
        if (gumbel) {
            return new double[] {0, 0};
        }
        double half = Z95 * standardError(2);
        return new double[] {shape - half, shape + half};
    }

    /** The upper end point of a bounded tail (shape < 0), else +infinity. */
    public double upperEnd() {
        return !gumbel && shape < 0 ? location - scale / shape : Double.POSITIVE_INFINITY;
    }

    private static double mean(double[] z) {
        double s = 0;
        for (double v : z) {
            s += v;
        }
        return s / z.length;
    }

    /** Mean and standard deviation of the maxima, to standardise them. */
    private record Standard(double mean, double sd) {
        static Standard of(double[] x) {
            double m = GevFit.mean(x), s = 0;
            for (double v : x) {
                s += (v - m) * (v - m);
            }
            double sd = Math.sqrt(s / Math.max(1, x.length - 1));
            if (!(sd > 0)) {
                throw new IllegalArgumentException("the block maxima are all equal: no spread to fit");
            }
            return new Standard(m, sd);
        }

        double[] apply(double[] x) {
            double[] z = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                z[i] = (x[i] - mean) / sd;
            }
            return z;
        }
    }
}
