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
        IsoRule r = new IsoRule(100, PERIOD);
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
        IsoRule r = new IsoRule(100, PERIOD);
        // one CPU's worth on two CPUs is half the capacity
        r.sample(TICK, TICK, 2);
        assertEquals(0.125, r.share(), 1e-12);
        // a late sample (two ticks) weighs two quarters
        IsoRule late = new IsoRule(100, PERIOD);
        late.sample(2 * TICK, 2 * TICK, 1);
        assertEquals(0.5, late.share(), 1e-12);
        // a stall longer than iso_period replaces the share
        IsoRule stalled = new IsoRule(100, PERIOD);
        stalled.sample(3 * PERIOD, 6 * PERIOD, 1);
        assertEquals(0.5, stalled.share(), 1e-12);
    }

    @Test
    void overIsoCpuDemotesAndUnderNinetyPercentOfItPromotes() {
        IsoRule r = new IsoRule(50, PERIOD);
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
        IsoRule h = new IsoRule(50, PERIOD);
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
        IsoRule r = new IsoRule(70, PERIOD);
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
        IsoRule r = new IsoRule(100, PERIOD);
        for (int i = 0; i < 1000; i++) {
            assertEquals(Change.NONE, r.sample(TICK, TICK, 1));
        }
        assertEquals(1.0, r.share(), 1e-9);
        assertFalse(r.demoted());
    }

    /** Near: over 80 % of iso_cpu (now, or at the fastest rise over a horizon), or demoted; never at iso_cpu 100. */
    @Test
    void nearTheLimitIsOverEightyPercentOfItOrDemoted() {
        IsoRule r = new IsoRule(50, PERIOD);
        assertFalse(r.near(0));
        // A whole period at 40 % in one sample: share 0.4 = 80 % of 0.5, not over it.
        r.sample(PERIOD * 4 / 10, PERIOD, 1);
        assertEquals(0.4, r.share(), 1e-9);
        assertFalse(r.near(0));
        r.sample(PERIOD * 45 / 100, PERIOD, 1);
        assertTrue(r.near(0));
        assertEquals(Change.DEMOTE, r.sample(PERIOD, PERIOD, 1));
        // Demoted: near whatever the share, until promoted.
        assertEquals(Change.NONE, r.sample(PERIOD * 46 / 100, PERIOD, 1));
        assertTrue(r.near(0));
        assertEquals(Change.PROMOTE, r.sample(0, PERIOD, 1));
        assertFalse(r.near(0));
        // Over a horizon the share could rise to: 0.35 + (1.5 - 0.35) x 1/4 = 0.6375 > 0.4.
        IsoRule rising = new IsoRule(50, PERIOD);
        rising.sample(PERIOD * 35 / 100, PERIOD, 1);
        assertFalse(rising.near(0));
        assertTrue(rising.near(TICK));
        IsoRule hundred = new IsoRule(100, PERIOD);
        hundred.sample(PERIOD, PERIOD, 1);
        assertFalse(hundred.near(TICK));
    }

    @Test
    void badArguments() {
        assertEquals("iso_cpu 101 is out of range: use 0 to 100",
                assertThrows(IllegalArgumentException.class, () -> new IsoRule(101, PERIOD)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new IsoRule(70, 0));
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
