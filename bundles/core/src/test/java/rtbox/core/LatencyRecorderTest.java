package rtbox.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Histogram;

class LatencyRecorderTest {
    @Test
    void bucketsOverflowsAndExactFigures() {
        LatencyRecorder r = new LatencyRecorder(0, 100, 1_000_000);
        r.reset(0, 50_000);
        r.record(1_500, 10);       // bucket 1
        r.record(1_999, 20);       // bucket 1
        r.record(99_999, 30);      // bucket 99, a spike
        r.record(100_000, 40);     // overflow, a spike
        r.record(-5, 50);          // clock rounding: counted as 0
        Histogram h = r.histogram();
        assertEquals(5, h.samples());
        assertEquals(h.samples(), h.total());
        assertEquals(2, h.counts()[1]);
        assertEquals(1, h.counts()[99]);
        assertEquals(1, h.counts()[0]);
        assertEquals(1, h.overflows());
        assertEquals(0, h.minNs());
        assertEquals(100_000, h.maxNs());
        assertEquals(2, r.spikes().size());
        assertEquals(30, r.spikes().get(0).offsetNs());
    }

    @Test
    void correctedViewFillsInSkippedPeriods() {
        LatencyRecorder r = new LatencyRecorder(0, 10_000, 1_000_000);
        r.reset(0, Long.MAX_VALUE);
        for (int i = 0; i < 100; i++) {
            r.record(50_000, i);
        }
        r.record(5_500_000, 1000); // 5.5 periods late: 5 wake-ups that never happened
        r.missed(5);
        assertEquals(101, r.samples());
        assertEquals(106, r.corrected().samples());
        assertEquals(5, r.missedDeadlines());
        assertTrue(r.histogram().p50Ns() >= 50_000 && r.histogram().p50Ns() < 50_100);
    }

    @Test
    void resetForgetsTheWarmUp() {
        LatencyRecorder r = new LatencyRecorder(0, 10, 0);
        r.record(3_000, 1);
        r.missed(2);
        r.reset(100, 1000);
        assertEquals(0, r.samples());
        assertEquals(0, r.missedDeadlines());
        assertEquals(0, r.histogram().total());
    }
}
