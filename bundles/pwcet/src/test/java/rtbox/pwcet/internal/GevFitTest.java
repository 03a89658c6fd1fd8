package rtbox.pwcet.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hipparchus.distribution.continuous.GumbelDistribution;
import org.junit.jupiter.api.Test;

/**
 * The fits against published reference values: Coles (2001), An Introduction to Statistical
 * Modeling of Extreme Values, example 3.4.1, the annual maximum sea levels at Port Pirie
 * (1923-1987, 65 values, in m): GEV by maximum likelihood mu 3.87 (se 0.028), sigma 0.198
 * (0.020), xi -0.050 (0.098), maximised log-likelihood 4.34; the 10- and 100-year return
 * levels 4.30 [4.19, 4.41] and 4.69 [4.38, 5.00] (delta method, 95 %).
 */
class GevFitTest {
    static final double[] PORT_PIRIE = {4.03, 3.83, 3.65, 3.88, 4.01, 4.08, 4.18, 3.80, 4.36, 3.96, 3.98, 4.69, 3.85,
        3.96, 3.85, 3.93, 3.75, 3.63, 3.57, 4.25, 3.97, 4.05, 4.24, 4.22, 3.73, 4.37, 4.06, 3.71, 3.96, 4.06, 4.55, 3.79,
        3.89, 4.11, 3.85, 3.86, 3.86, 4.21, 4.01, 4.11, 4.24, 3.96, 4.21, 3.74, 3.85, 3.88, 3.66, 4.11, 3.71, 4.18, 3.90,
        3.78, 3.91, 3.72, 4.00, 3.66, 3.62, 4.33, 4.55, 3.75, 4.08, 3.90, 3.88, 3.94, 4.33};

    @Test
    void gevOnPortPirieIsColesExample341() {
        GevFit f = GevFit.gev(PORT_PIRIE);
        assertEquals(3.87, f.location, 0.005);
        assertEquals(0.198, f.scale, 0.0015);
        assertEquals(-0.050, f.shape, 0.005);
        assertEquals(0.028, f.standardError(0), 0.0015);
        assertEquals(0.020, f.standardError(1), 0.0015);
        assertEquals(0.098, f.standardError(2), 0.003);
        assertEquals(4.34, f.logLikelihood, 0.01);
        double[] ten = f.levelWithInterval(-Math.log1p(-0.1));
        assertEquals(4.30, ten[0], 0.006);
        assertEquals(4.19, ten[1], 0.006);
        assertEquals(4.41, ten[2], 0.006);
        double[] hundred = f.levelWithInterval(-Math.log1p(-0.01));
        assertEquals(4.69, hundred[0], 0.006);
        assertEquals(4.38, hundred[1], 0.006);
        assertEquals(5.00, hundred[2], 0.006);
    }

    @Test
    void gumbelOnPortPirieIsTheLikelihoodsMaximumAndNoBetterThanGev() {
        GevFit g = GevFit.gumbel(PORT_PIRIE);
        GevFit gev = GevFit.gev(PORT_PIRIE);
        // Coles: the GEV's shape is not different from 0 (its CI holds 0), so the deviance is small.
        double deviance = 2 * (gev.logLikelihood - g.logLikelihood);
        assertTrue(deviance >= -1e-6 && deviance < 3.84, "deviance " + deviance);
        assertEquals(3.87, g.location, 0.01);
        assertEquals(0.195, g.scale, 0.005);
        // A maximum: moving either parameter lowers the likelihood.
        double[] z = PORT_PIRIE;
        double at = -GevFit.nll(z, g.location, g.scale, 0);
        assertTrue(at >= -GevFit.nll(z, g.location + 0.002, g.scale, 0));
        assertTrue(at >= -GevFit.nll(z, g.location, g.scale * 1.01, 0));
    }

    @Test
    void levelsAreTheDistributionsOwnQuantiles() {
        // Hipparchus's Gumbel distribution as the reference for the level formula.
        GevFit g = GevFit.gumbel(PORT_PIRIE);
        GumbelDistribution d = new GumbelDistribution(g.location, g.scale);
        for (double q : new double[] {0.5, 0.1, 1e-3, 1e-6}) {
            assertEquals(d.inverseCumulativeProbability(1 - q), g.level(-Math.log1p(-q)), 1e-6 * (1 + 1 / q * 0));
        }
    }
}
