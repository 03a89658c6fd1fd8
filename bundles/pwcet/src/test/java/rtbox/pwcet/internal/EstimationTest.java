package rtbox.pwcet.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.result.PwcetEstimate;
import rtbox.api.result.PwcetLevel;

/** Estimates on synthetic block maxima whose tails are known. */
class EstimationTest {
    static List<String> ordinary(int n) {
        return new ArrayList<>(Collections.nCopies(n, "ordinary"));
    }

    @Test
    void gumbelMaximaGiveTheTrueLevelsWithinTheirIntervals() {
        double mu = 80_000, sigma = 6_000;
        long[] x = Synthetic.gumbel(300, mu, sigma, 11);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(x.length), 1000, 1_000_000);
        assertTrue(e.applicable(), e.refusal() + " " + e.checks());
        assertNull(e.refusal());
        assertEquals("gumbel", e.model());
        assertEquals("exponential", e.tail());
        assertTrue(e.gev().shapeLow() < 0 && e.gev().shapeHigh() > 0, e.gev().toString());
        for (double p : Estimation.PROBABILITIES) {
            PwcetLevel s = e.level(p, "sample");
            // Per sample: G(x) = (1 - p)^1000.
            double truth = mu - sigma * Math.log(-1000 * Math.log1p(-p));
            assertTrue(s.lowNs() <= truth && truth <= s.highNs(), p + ": " + s + " truth " + truth);
            PwcetLevel h = e.level(p, "hour");
            // Per hour at 1 ms: 3600 blocks an hour, G(x)^3600 = 1 - p.
            double hourTruth = mu - sigma * Math.log(-Math.log1p(-p) / 3600);
            assertTrue(h.lowNs() <= hourTruth && hourTruth <= h.highNs(), p + ": " + h + " truth " + hourTruth);
            assertTrue(h.ns() > s.ns(), "an hour's worst at p is rarer than one sample's");
        }
        assertTrue(e.level(1e-12, "sample").ns() > e.level(1e-9, "sample").ns());
        assertTrue(e.curve().size() > 10);
    }

    @Test
    void aBoundedTailIsSaidWithItsEndPointAndTheLevelsStayAboveIt() {
        double mu = 50_000, sigma = 4_000, xi = -0.4;
        long[] x = Synthetic.gev(400, mu, sigma, xi, 5);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(x.length), 1000, 1_000_000);
        assertTrue(e.applicable(), e.refusal());
        assertEquals("bounded", e.tail());
        assertTrue(e.gev().shapeHigh() < 0, e.gev().toString());
        double end = mu - sigma / xi; // 60,000 ns
        assertEquals(end, e.upperEndNs(), 1500);
        assertEquals("gumbel", e.model());
        assertTrue(e.level(1e-9, "hour").ns() > e.upperEndNs(), "Gumbel's level lies above the bounded tail");
        assertTrue(e.checks().stream().anyMatch(c -> c.name().equals("fit") && c.detail().contains("bounded tail")));
    }

    @Test
    void aHeavyTailUsesTheGev() {
        long[] x = Synthetic.gev(400, 50_000, 4_000, 0.3, 3);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(x.length), 1000, 1_000_000);
        assertTrue(e.applicable(), e.refusal());
        assertEquals("heavy", e.tail());
        assertEquals("gev", e.model());
        assertEquals(0.3, e.gev().shape(), 0.12);
    }

    @Test
    void aTailThatMixesCausesIsRefusedAndNamesThem() {
        // Two mechanisms, each Gumbel, spread evenly over the run: the i.i.d. tests do not see the
        // mixture, the tail's causes do (about half the largest maxima are each cause's).
        long[] preempted = Synthetic.gumbel(100, 150_000, 20_000, 7);
        long[] stall = Synthetic.gumbel(100, 160_000, 20_000, 8);
        List<String> causes = new ArrayList<>();
        long[] x = new long[100];
        for (int i = 0; i < x.length; i++) {
            boolean odd = i % 2 == 1;
            x[i] = odd ? stall[i] : preempted[i];
            causes.add(odd ? "machine-wide stall" : "preempted");
        }
        PwcetEstimate m = Estimation.estimate("cpu0", x, causes, 1000, 1_000_000);
        assertTrue(m.checks().stream().filter(c -> !c.name().equals("tail causes")).allMatch(c -> c.passed()),
                m.checks().toString());
        assertFalse(m.applicable());
        assertTrue(m.refusal().startsWith("not applicable: the largest 20 block maxima: "), m.refusal());
        assertTrue(m.refusal().contains("preempted") && m.refusal().contains("machine-wide stall")
                && m.refusal().contains("mixes causes"), m.refusal());
        assertTrue(m.levels().isEmpty() && m.curve().isEmpty() && m.gev() == null, "no level given as if it held");
        // The same maxima all of one cause pass.
        PwcetEstimate one = Estimation.estimate("cpu0", x, ordinary(100), 1000, 1_000_000);
        assertTrue(one.checks().stream().anyMatch(c -> c.name().equals("tail causes") && c.passed()));
    }

    @Test
    void halvesThatDifferAreRefusedWithTheKsPValue() {
        long[] a = Synthetic.gumbel(40, 60_000, 3_000, 1);
        long[] b = Synthetic.gumbel(40, 90_000, 3_000, 2);
        long[] x = new long[80];
        System.arraycopy(a, 0, x, 0, 40);
        System.arraycopy(b, 0, x, 40, 40);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(80), 1000, 1_000_000);
        assertFalse(e.applicable());
        // The independence test sees the step first (it correlates neighbours); both fail.
        assertTrue(e.checks().stream().anyMatch(c -> c.name().equals("identical distribution") && !c.passed()
                && c.pValue() < 0.001 && c.detail().contains("the halves differ")), e.checks().toString());
        assertTrue(e.refusal().startsWith("not applicable: "), e.refusal());
    }

    @Test
    void aPeriodicDisturbanceIsRefusedAsCorrelated() {
        long[] x = Synthetic.gumbel(120, 60_000, 3_000, 4);
        for (int i = 0; i < x.length; i++) {
            x[i] += Math.round(20_000 * Math.sin(2 * Math.PI * i / 12.0));
        }
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(x.length), 1000, 1_000_000);
        assertFalse(e.applicable());
        assertTrue(e.refusal().contains("Ljung-Box") && e.refusal().contains("correlated"), e.refusal());
    }

    @Test
    void tooFewBlocksAreRefused() {
        long[] x = Synthetic.gumbel(12, 60_000, 3_000, 4);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(12), 1000, 1_000_000);
        assertFalse(e.applicable());
        assertEquals("not applicable: 12 block maxima of 1000 samples: at least 30 are needed; run longer", e.refusal());
    }

    @Test
    void aThresholdsProbabilityGetsItsOwnPerHourLevel() {
        long[] x = Synthetic.gumbel(100, 60_000, 3_000, 4);
        PwcetEstimate e = Estimation.estimate("cpu0", x, ordinary(100), 1000, 1_000_000, 1e-4);
        assertTrue(e.applicable(), e.refusal());
        assertTrue(e.level(1e-4, "hour").ns() < e.level(1e-6, "hour").ns());
    }
}
