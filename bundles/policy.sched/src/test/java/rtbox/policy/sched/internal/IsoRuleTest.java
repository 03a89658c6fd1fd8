package rtbox.policy.sched.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.policy.sched.internal.IsoRule.Change;

/**
 * SCHED_ISO's rule against series computed by hand. A period of 4 ticks keeps the
 * arithmetic short: each sample moves the share a quarter of the way to what was used.
 */
class IsoRuleTest {
    static final long TICK = 10_000_000L;
    static final long PERIOD = 4 * TICK;

    @Test
    void theShareIsADecayingAverageOverIsoPeriod() {
        IsoRule r = new IsoRule(100, PERIOD, TICK);
        // fully used for 4 ticks: 1/4, 7/16, 37/64, 175/256
        double[] expected = {0.25, 0.4375, 0.578125, 0.68359375};
        for (double e : expected) {
            assertEquals(Change.NONE, r.sample(TICK, TICK, 1));
            assertEquals(e, r.share(), 1e-12);
        }
        // idle for 2 ticks: 175/256 * 3/4 = 525/1024, then * 3/4 = 1575/4096
        r.sample(0, TICK, 1);
        assertEquals(525.0 / 1024, r.share(), 1e-12);
        r.sample(0, TICK, 1);
        assertEquals(1575.0 / 4096, r.share(), 1e-12);
        // half a tick used: share += (0.5 - share) / 4
        r.sample(TICK / 2, TICK, 1);
        assertEquals(1575.0 / 4096 + (0.5 - 1575.0 / 4096) / 4, r.share(), 1e-12);
    }

    @Test
    void theShareIsOfTheCpusTheThreadsMayUseAndOfTheTimeThatPassed() {
        IsoRule r = new IsoRule(100, PERIOD, TICK);
        // one CPU's worth on two CPUs is half the capacity
        r.sample(TICK, TICK, 2);
        assertEquals(0.125, r.share(), 1e-12);
        // a late sample (two ticks) moves the share as two ticks do: 1/4, then 7/16 (not two
        // quarters at once, 1/2, which would run ahead of the kernel's ticks)
        IsoRule late = new IsoRule(100, PERIOD, TICK);
        late.sample(2 * TICK, 2 * TICK, 1);
        assertEquals(7.0 / 16, late.share(), 1e-12);
        // and one and a half ticks as 1 - (3/4)^1.5 of the way
        IsoRule between = new IsoRule(100, PERIOD, TICK);
        between.sample(3 * TICK / 2, 3 * TICK / 2, 1);
        assertEquals(1 - Math.pow(0.75, 1.5), between.share(), 1e-12);
        // a stall of six iso_periods (24 ticks) all but replaces the share: 0.5 x (1 - (3/4)^24)
        IsoRule stalled = new IsoRule(100, PERIOD, TICK);
        stalled.sample(3 * PERIOD, 6 * PERIOD, 1);
        assertEquals(0.5 * (1 - Math.pow(0.75, 24)), stalled.share(), 1e-12);
    }

    @Test
    void overIsoCpuDemotesAndUnderNinetyPercentOfItPromotes() {
        IsoRule r = new IsoRule(50, PERIOD, TICK);
        // used fully: 0.25, 0.4375, then 0.578125 > 0.50: demote at the third tick
        assertEquals(Change.NONE, r.sample(TICK, TICK, 1));
        assertEquals(Change.NONE, r.sample(TICK, TICK, 1));
        assertEquals(Change.DEMOTE, r.sample(TICK, TICK, 1));
        assertTrue(r.demoted());
        // demoted, the task still runs half the time as a normal task: 0.578125 -> 0.55859375
        // -> 0.5439453125 -> ... stays over 0.45 = 90 % of 50: no promotion
        for (int i = 0; i < 20; i++) {
            assertEquals(Change.NONE, r.sample(TICK / 2, TICK, 1));
        }
        assertTrue(r.share() > 0.45 && r.share() < 0.5005, "tends to 0.5: " + r.share());
        // idle: 0.5 * 3/4 = 0.375 < 0.45 at the first tick (from ~0.5002)
        assertEquals(Change.PROMOTE, r.sample(0, TICK, 1));
        assertFalse(r.demoted());
        // between 0.45 and 0.50 nothing happens in either direction
        IsoRule h = new IsoRule(50, PERIOD, TICK);
        h.sample(TICK, TICK, 1);
        h.sample(TICK, TICK, 1);
        h.sample(TICK, TICK, 1); // 0.578125, demoted
        assertEquals(Change.NONE, h.sample(TICK / 4, TICK, 1)); // 0.578125*3/4 + 0.0625 = 0.49609375
        assertEquals(0.49609375, h.share(), 1e-12);
        assertEquals(Change.PROMOTE, h.sample(TICK / 4, TICK, 1)); // 0.4345703125 < 0.45
        assertEquals(0.4345703125, h.share(), 1e-12);
    }

    @Test
    void promotionIsBelowNinetyPercentNotAtTheLimit() {
        IsoRule r = new IsoRule(70, PERIOD, TICK);
        for (int i = 0; i < 4; i++) {
            assertEquals(Change.NONE, r.sample(TICK, TICK, 1)); // ... 0.68359375, under 0.70
        }
        assertEquals(Change.DEMOTE, r.sample(TICK, TICK, 1)); // 0.7626953125 > 0.70
        // 35 % used: 0.7626953125 * 3/4 + 0.0875 = 0.6595214844: under the limit, over 63 %: stays demoted
        assertEquals(Change.NONE, r.sample(TICK * 35 / 100, TICK, 1));
        assertEquals(0.6595214844, r.share(), 1e-9);
        assertTrue(r.demoted());
        // again: 0.5821411133 < 0.63: promoted
        assertEquals(Change.PROMOTE, r.sample(TICK * 35 / 100, TICK, 1));
        assertEquals(0.5821411133, r.share(), 1e-9);
    }

    @Test
    void isoCpu100NeverDemotes() {
        IsoRule r = new IsoRule(100, PERIOD, TICK);
        for (int i = 0; i < 1000; i++) {
            assertEquals(Change.NONE, r.sample(TICK, TICK, 1));
        }
        assertEquals(1.0, r.share(), 1e-9);
        assertFalse(r.demoted());
    }

    /**
     * Quiet ticks: as many as the share cannot cross in, rising at 1.5 (or falling at 0,
     * demoted), by the straight-line bound; hand-computed at w = tick / period = 0.01.
     */
    @Test
    void quietTicksAreTheTicksTheShareCannotCrossIn() {
        long period = 100 * TICK;
        IsoRule r = new IsoRule(50, period, TICK);
        // From 0: 0.5 / (1.5 x 0.01) = 33.3.
        assertEquals(33, r.quietTicks(100));
        assertEquals(10, r.quietTicks(10));
        // Long enough at 40 % that the share is 0.4: (0.5 - 0.4) / (1.1 x 0.01) = 9.09.
        settle(r, 0.4, period);
        assertEquals(9, r.quietTicks(100));
        // 0.49: 0.01 / (1.01 x 0.01) = 0.99, so the very next tick.
        settle(r, 0.49, period);
        assertEquals(1, r.quietTicks(100));
        // Demoted at 1.0: falling at no use, (1 - 0.45 / 1.0) / 0.01 = 55.
        assertEquals(Change.DEMOTE, settle(r, 1.0, period));
        assertEquals(55, r.quietTicks(100));
        // Still demoted at 0.6: (1 - 0.45 / 0.6) / 0.01 = 25.
        assertEquals(Change.NONE, settle(r, 0.6, period));
        assertEquals(25, r.quietTicks(100));
        assertEquals(Change.PROMOTE, settle(r, 0, period));
        IsoRule hundred = new IsoRule(100, period, TICK);
        settle(hundred, 1.0, period);
        assertEquals(10, hundred.quietTicks(10));
    }

    /**
     * The bound against the rule itself: ticked one by one at the fastest rise (or fall), the
     * first change never comes before the quiet ticks are over, and one sample over all of
     * them sees it no later than the ticks did.
     */
    @Test
    void noChangeIsSeenLaterThanTickByTick() {
        long period = 100 * TICK;
        for (int start = 0; start <= 70; start += 5) {
            IsoRule ticked = new IsoRule(70, period, TICK);
            IsoRule strided = new IsoRule(70, period, TICK);
            settle(ticked, start / 100.0, period);
            settle(strided, start / 100.0, period);
            int quiet = strided.quietTicks(1000);
            long fastest = (long) (IsoRule.MAX_USE * TICK);
            int first = 0;
            for (int t = 1; t <= 1000 && first == 0; t++) {
                if (ticked.sample(fastest, TICK, 1) == Change.DEMOTE) {
                    first = t;
                }
            }
            assertTrue(first >= quiet, "from " + start + " %: demoted at tick " + first + ", quiet for " + quiet);
            assertEquals(first == quiet ? Change.DEMOTE : Change.NONE, strided.sample(fastest * quiet, TICK * quiet, 1),
                    "from " + start + " %: one sample over " + quiet + " ticks");
        }
    }

    /**
     * A quiet stride of ten ticks in one sample rises as the ten ticks do, so a spinner's
     * share crosses iso_cpu on the same tick whichever way it is sampled (bench/iso-reaction:
     * ten ticks in one straight step crossed 60 ms early at a 1 s iso_period).
     */
    @Test
    void aStrideRisesAsItsTicksDo() {
        long period = 100 * TICK;
        IsoRule ticked = new IsoRule(70, period, TICK);
        IsoRule strided = new IsoRule(70, period, TICK);
        int tickedAt = 0, stridedAt = 0;
        for (int t = 1; t <= 200; t++) {
            if (ticked.sample(TICK, TICK, 1) == Change.DEMOTE) {
                tickedAt = t;
            }
            if (t % 10 == 0 && strided.sample(10 * TICK, 10 * TICK, 1) == Change.DEMOTE) {
                stridedAt = t;
            }
            if (t % 10 == 0) {
                assertEquals(ticked.share(), strided.share(), 1e-12, "after " + t + " ticks");
            }
        }
        // 1 - 0.99^t > 0.7 from t = 120 (0.99^119 = 0.3024, 0.99^120 = 0.2994)
        assertEquals(120, tickedAt);
        assertEquals(120, stridedAt);
    }

    /** Samples {@code use} for a thousand iso_periods, so that the share is {@code use}. */
    private static Change settle(IsoRule r, double use, long period) {
        return r.sample((long) (use * 1000 * period), 1000 * period, 1);
    }

    @Test
    void badArguments() {
        assertEquals("iso_cpu 101 is out of range: use 0 to 100",
                assertThrows(IllegalArgumentException.class, () -> new IsoRule(101, PERIOD, TICK)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new IsoRule(70, 0, TICK));
        assertThrows(IllegalArgumentException.class, () -> new IsoRule(70, PERIOD, 0));
    }

    @Test
    void theIsoBandLiesUnderTheSupervisorWhichLiesUnderTheMeasuringThreads() {
        assertEquals(1, IsoBand.rtPriority(1));
        assertEquals(9, IsoBand.rtPriority(9));
        assertTrue(IsoBand.HIGH < IsoBand.SUPERVISOR && IsoBand.SUPERVISOR < IsoBand.MEASURING_LOW);
        // the tuner's default priority for fifo/rr runs (50) is in the measuring band
        assertTrue(50 >= IsoBand.MEASURING_LOW);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IsoBand.rtPriority(10)).getMessage()
                .startsWith("iso_priority 10 is outside the ISO band: use 1 to 9"));
        assertThrows(IllegalArgumentException.class, () -> IsoBand.rtPriority(0));
    }
}
