package rtbox.regression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Cases whose answers are computed by hand (in each test's comment). */
class RegressionTest {
    private static Change change(double[] a, double[] b) {
        return Regression.change("idle", Figure.P99, a, b, 0.95, 10_000);
    }

    @Test
    void separatedSetsAreARegressionWithEveryResampleInsideTheExtremes() {
        // Every resample's mean of B lies in [200, 220], of A in [100, 120]: B - A in [80, 120].
        // Mean difference 100; both sample sd 10, so pooled sd 10 and Cohen's d 10.
        Change c = change(new double[] {100, 110, 120}, new double[] {200, 210, 220});
        assertEquals(Verdict.REGRESSED, c.verdict());
        assertEquals(100, c.difference(), 1e-9);
        assertTrue(c.low() >= 80 && c.low() < 100 && c.high() <= 120 && c.high() > 100, c.low() + " " + c.high());
        assertEquals(10, c.effectSize(), 1e-9);
        assertEquals(100.0 / 110, c.relative(), 1e-9);
        // Student's t (pooled): t = 100 / (10 sqrt(2/3)) = 12.247, df 4: p = 1 - t (t^2 + 6) / (t^2 + 4)^1.5 = 0.000255
        assertEquals(0.000255, c.pValue(), 1e-6);
        assertEquals(0, c.runsNeeded());
    }

    @Test
    void anIntervalOffZeroIsNoChangeWhileTheTTestDoesNotAgree() {
        // Every B run is above A's mean but the sets overlap: the bootstrap's few distinct
        // resamples put its 2.5th percentile above 0, yet Student's t = 15 / (10 sqrt(2/3)) = 1.837,
        // df 4, p = 0.140: not beyond noise.
        Change c = change(new double[] {100, 110, 120}, new double[] {115, 125, 135});
        assertTrue(c.low() > 0, "the bootstrap alone would call it: " + c.low());
        assertEquals(0.1401, c.pValue(), 1e-4);
        assertEquals(Verdict.NO_CHANGE, c.verdict());
        assertTrue(c.runsNeeded() > 3);
    }

    @Test
    void theSameSetsReversedAreAnImprovement() {
        Change c = change(new double[] {200, 210, 220}, new double[] {100, 110, 120});
        assertEquals(Verdict.IMPROVED, c.verdict());
        assertEquals(-100, c.difference(), 1e-9);
        assertTrue(c.high() <= -80 && c.low() >= -120);
    }

    @Test
    void oneOutlierRunInBIsNoChangeWithTheIntervalOfItsBinomialCount() {
        // A = {10,10,10} never moves; B = {10,10,40}: a resample's mean is 10 + 10 k, with k the
        // times 40 is drawn, k ~ Binomial(3, 1/3): P(k=0) 8/27 = 29.6 %, P(k<=2) 26/27 = 96.3 %.
        // So the 2.5th percentile of B - A is 0 and the 97.5th is 30; the mean difference 10.
        Change c = change(new double[] {10, 10, 10}, new double[] {10, 10, 40});
        assertEquals(Verdict.NO_CHANGE, c.verdict());
        assertEquals(10, c.difference(), 1e-9);
        assertEquals(0, c.low(), 1e-9);
        assertEquals(30, c.high(), 1e-9);
        // pooled sd: A 0, B sd = sqrt(((-10)^2 + (-10)^2 + 20^2) / 2) = sqrt(300); pooled sqrt(600 / 4) = 12.25;
        // d = 10 / 12.247 = 0.8165
        assertEquals(0.8165, c.effectSize(), 1e-4);
        // runs needed at 95 %, power 80 %: 2 (1.95996 + 0.84162)^2 (12.247 / 10)^2 = 23.5: 24
        assertEquals(24, c.runsNeeded());
    }

    @Test
    void runsThatDoNotSpreadAreNoChangeWhenEqualAndARegressionWhenNot() {
        Change same = change(new double[] {0, 0, 0}, new double[] {0, 0, 0});
        assertEquals(Verdict.NO_CHANGE, same.verdict());
        assertEquals(0, same.low(), 0);
        assertEquals(0, same.high(), 0);
        assertTrue(Double.isNaN(same.effectSize()));
        assertEquals(0, same.runsNeeded());
        Change missed = change(new double[] {0, 0, 0}, new double[] {2, 2, 2});
        assertEquals(Verdict.REGRESSED, missed.verdict());
        assertEquals(2, missed.low(), 0);
        assertEquals(2, missed.high(), 0);
        assertTrue(Double.isNaN(missed.relative()), "no relative change from 0");
    }

    @Test
    void aSetThatDoesNotSpreadAgainstOneThatDoesIsJudgedOnThePooledSpread() {
        // A {0, 0, 0} missed deadlines, B {40, 50, 60}: pooled sd sqrt((0 + 2 * 100) / 4) = 7.071,
        // t = 50 / (7.071 sqrt(2/3)) = 8.660, df 4: p = 0.000978 (Welch's df would be 2: p 0.013).
        Change c = Regression.change("idle", Figure.MISSED_DEADLINES, new double[] {0, 0, 0},
                new double[] {40, 50, 60}, 0.99, 10_000);
        assertEquals(0.000978, c.pValue(), 1e-6);
        assertEquals(Verdict.REGRESSED, c.verdict());
        assertEquals(40, c.low(), 1e-9);
    }

    @Test
    void fewerThanThreeRunsIsTooFewWithTheRunsADifferenceLikeThisWouldNeed() {
        // A {100, 120}, B {110, 130}: difference 10, each sd 14.14, pooled 14.14;
        // at 95 %, power 80 %: 2 * 7.8489 * (14.142 / 10)^2 = 31.4: 32 per set.
        Change c = change(new double[] {100, 120}, new double[] {110, 130});
        assertEquals(Verdict.TOO_FEW_RUNS, c.verdict());
        assertTrue(Double.isNaN(c.low()));
        assertEquals(32, c.runsNeeded());
        // One run each: no spread known, the minimum is what can be said.
        assertEquals(Regression.MIN_RUNS, change(new double[] {100}, new double[] {300}).runsNeeded());
    }

    @Test
    void interleavedSetsOfFiveAreNoChangeAndSayHowManyRunsWouldTell() {
        Change c = change(new double[] {100, 150, 120, 130, 110}, new double[] {105, 145, 125, 115, 135});
        assertEquals(Verdict.NO_CHANGE, c.verdict());
        assertEquals(3, c.difference(), 1e-9);
        assertTrue(c.low() < 0 && c.high() > 0);
        assertTrue(c.runsNeeded() > 5, "more runs than there are: " + c.runsNeeded());
    }

    @Test
    void theSameSetsGiveTheSameIntervalEveryTime() {
        double[] a = {101, 143, 97, 120}, b = {130, 99, 160, 141};
        Change first = change(a, b), second = change(a, b);
        assertEquals(first.low(), second.low(), 0);
        assertEquals(first.high(), second.high(), 0);
    }

    @Test
    void aComparisonPairsCellsByNameAndNamesWhatIsInOneSetOnly() {
        List<RunFigures> a = List.of(run("a1", 10, 100), run("a2", 11, 110), run("a3", 12, 120));
        List<RunFigures> b = List.of(run("b1", 10, 200), run("b2", 11, 210), run("b3", 12, 220));
        Map<String, Map<Figure, Double>> extra = new LinkedHashMap<>(b.get(0).cells());
        extra.put("pipe", Map.of(Figure.P99, 5.0));
        b = List.of(new RunFigures("b1", "quick", extra), b.get(1), b.get(2));
        Comparison c = Regression.compare(a, b);
        assertEquals(Verdict.REGRESSED, c.verdict());
        assertEquals(List.of("cell pipe is only in set B"), c.notes());
        Change max = c.changes().stream().filter(x -> x.figure() == Figure.MAX).findFirst().orElseThrow();
        assertEquals(Verdict.REGRESSED, max.verdict());
        Change p50 = c.changes().stream().filter(x -> x.figure() == Figure.P50).findFirst().orElseThrow();
        assertEquals(Verdict.NO_CHANGE, p50.verdict());
        assertEquals(0.99, c.confidence());
    }

    @Test
    void runsOfAnotherPlanAreRefusedNamingTheFile() {
        List<RunFigures> a = List.of(run("a1", 10, 100));
        List<RunFigures> b = List.of(new RunFigures("other.json", "kernel-ab", run("x", 1, 1).cells()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Regression.compare(a, b));
        assertEquals("other.json is a run of plan 'kernel-ab', a1 a run of plan 'quick': both sets must be runs of"
                + " the same plan", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Regression.compare(a, a, 1.5, 10_000));
    }

    private static RunFigures run(String source, double p50, double max) {
        Map<Figure, Double> f = new LinkedHashMap<>();
        f.put(Figure.P50, p50);
        f.put(Figure.MAX, max);
        return new RunFigures(source, "quick", Map.of("idle", f));
    }
}
