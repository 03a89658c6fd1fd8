package rtbox.probe.graph.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Hand-computed figures for the calibration maths. */
class CalibrationTest {
    @Test
    void targetIsTheLoadOfThePeriod() {
        assertEquals(5_000_000, Calibration.targetNs(50, 10_000_000));
        // 64 frames at 48 kHz: 1333333 ns; 70 % of it.
        assertEquals(933_333, Calibration.targetNs(70, 1_333_333));
        assertEquals(0, Calibration.targetNs(0, 10_000_000));
    }

    @Test
    void aSpinCostsTheDifferenceOverTheSpins() {
        // 5 trips of 1M spins took 2.5 ms more than 5 trips without: 0.5 ns a spin.
        assertEquals(0.5, Calibration.nsPerSpin(2_600_000, 100_000, 1_000_000, 5), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> Calibration.nsPerSpin(1, 0, 0, 5));
    }

    @Test
    void theHopsCostComesOffBeforeTheWorkIsShared() {
        // 5 ms asked, 100 us of hops, 14 clients at 0.35 ns a spin: 4.9 ms / 14 / 0.35 = 1,000,000.
        assertEquals(1_000_000, Calibration.spinsFor(5_000_000, 100_000, 14, 0.35));
        // Hops that cost more than asked: no work, not negative work.
        assertEquals(0, Calibration.spinsFor(50_000, 100_000, 14, 0.35));
        // 200 us per client at 0.25 ns a spin.
        assertEquals(800_000, Calibration.spinsForWork(200_000, 0.25));
    }

    @Test
    void theCorrectionSharesTheMissOutAmongTheClients() {
        // Measured 5.14 ms where 5 ms was asked: 140 us too much over 14 clients = 10 us
        // each = 40,000 spins at 0.25 ns.
        assertEquals(960_000, Calibration.corrected(1_000_000, 5_140_000, 5_000_000, 14, 0.25, 1_000_000));
        assertEquals(1_040_000, Calibration.corrected(1_000_000, 4_860_000, 5_000_000, 14, 0.25, 1_000_000));
        // A round slowed down by a load (9 ms measured for 1 ms asked) takes at most half the estimate away.
        assertEquals(50, Calibration.corrected(100, 9_000_000, 1_000_000, 14, 0.25, 100));
        // And a quiet one adds at most up to twice the estimate.
        assertEquals(200, Calibration.corrected(100, 0, 1_000_000, 14, 0.25, 100));
    }

    @Test
    void medianOfTheFirstValues() {
        assertEquals(3, Calibration.median(new long[] {5, 1, 3, 99, 99}, 3));
        assertEquals(2, Calibration.median(new long[] {4, 1, 3, 0}, 2));
        assertEquals(0, Calibration.median(new long[] {7}, 0));
    }
}
