package rtbox.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.SchedPolicy;
import rtbox.api.result.Spike;

class RtThrottlingTest {
    private static final RtThrottling.Settings DEFAULT = new RtThrottling.Settings(950_000, 1_000_000);
    private static final long MS = 1_000_000;

    /** Stalls of {@code lengthMs} ending at the given times (ms from the start). */
    private static List<Spike> series(long lengthMs, long... endsMs) {
        List<Spike> s = new ArrayList<>();
        for (long e : endsMs) {
            s.add(new Spike(0, e * MS, lengthMs * MS, "", ""));
        }
        return s;
    }

    @Test
    void fiftyMillisecondStallsOnceASecondAtFifoAreThrottling() {
        List<Spike> s = series(50, 1000, 2000, 3001, 4000);
        List<Spike> l = RtThrottling.label(s, SchedPolicy.FIFO, DEFAULT, 4_500 * MS);
        for (Spike x : l) {
            assertEquals(RtThrottling.CAUSE, x.cause());
            assertTrue(x.detail().contains("950000"), x.detail());
        }
    }

    @Test
    void overshootsCutShortByTheWaitStillCount() {
        // A stall that began inside a 10 ms wait shows as 42 ms of overshoot.
        List<Spike> s = series(42, 1000, 2000);
        assertArrayEquals(new boolean[] {true, true}, RtThrottling.matches(s, SchedPolicy.RR, DEFAULT, 2_500 * MS));
    }

    @Test
    void skippedPeriodsAndOtherSpikesAmongThem() {
        // 2 s apart (one period without a spike over the threshold) and a 200 us spike between.
        List<Spike> s = series(50, 1000, 3000);
        s.add(1, new Spike(0, 1500 * MS, 200_000, "", ""));
        assertArrayEquals(new boolean[] {true, false, true}, RtThrottling.matches(s, SchedPolicy.FIFO, DEFAULT, 4_000 * MS));
    }

    @Test
    void notAtSchedOther() {
        List<Spike> s = series(50, 1000, 2000, 3000);
        assertArrayEquals(new boolean[3], RtThrottling.matches(s, SchedPolicy.OTHER, DEFAULT, 4_000 * MS));
        assertArrayEquals(new boolean[3], RtThrottling.matches(s, null, DEFAULT, 4_000 * MS));
    }

    @Test
    void notWhenThrottlingIsOffOrUnknown() {
        List<Spike> s = series(50, 1000, 2000, 3000);
        assertArrayEquals(new boolean[3], RtThrottling.matches(s, SchedPolicy.FIFO,
                new RtThrottling.Settings(-1, 1_000_000), 4_000 * MS));
        assertArrayEquals(new boolean[3], RtThrottling.matches(s, SchedPolicy.FIFO,
                new RtThrottling.Settings(1_000_000, 1_000_000), 4_000 * MS));
        assertArrayEquals(new boolean[3], RtThrottling.matches(s, SchedPolicy.FIFO, null, 4_000 * MS));
    }

    @Test
    void notStallsOfTheWrongLength() {
        // 300 ms (seed 002's IDE blocking) and 5 ms stalls, once a second.
        assertArrayEquals(new boolean[3], RtThrottling.matches(series(300, 1000, 2000, 3000), SchedPolicy.FIFO,
                DEFAULT, 4_000 * MS));
        assertArrayEquals(new boolean[3], RtThrottling.matches(series(5, 1000, 2000, 3000), SchedPolicy.FIFO,
                DEFAULT, 4_000 * MS));
    }

    @Test
    void notStallsOfTheRightLengthAtTheWrongSpacing() {
        // 50 ms stalls every 400 ms: not once per period.
        assertArrayEquals(new boolean[4], RtThrottling.matches(series(50, 400, 800, 1200, 1600), SchedPolicy.FIFO,
                DEFAULT, 2_000 * MS));
    }

    @Test
    void aLoneStallOnlyInARunTooShortToSeeTwo() {
        assertTrue(RtThrottling.matches(series(50, 900), SchedPolicy.FIFO, DEFAULT, 1_500 * MS)[0]);
        assertFalse(RtThrottling.matches(series(50, 900), SchedPolicy.FIFO, DEFAULT, 5_000 * MS)[0]);
    }

    @Test
    void otherSettingsScaleTheStall() {
        // 800000 of 1000000: 200 ms stalls.
        RtThrottling.Settings s = new RtThrottling.Settings(800_000, 1_000_000);
        assertArrayEquals(new boolean[] {true, true}, RtThrottling.matches(series(200, 1000, 2000), SchedPolicy.FIFO,
                s, 3_000 * MS));
        assertArrayEquals(new boolean[2], RtThrottling.matches(series(50, 1000, 2000), SchedPolicy.FIFO, s, 3_000 * MS));
        assertEquals(200 * MS, s.stallNs());
        assertTrue(s.on());
        assertFalse(new RtThrottling.Settings(-1, 1_000_000).on());
    }
}
