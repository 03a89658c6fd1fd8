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
        // 5 ms asked, 100 us of hops, 14 clients: 350 us each.
        assertEquals(350_000, Calibration.workNsPerClient(5_000_000, 100_000, 14));
        // Hops that cost more than asked: no work, not negative work.
        assertEquals(0, Calibration.workNsPerClient(50_000, 100_000, 14));
        // 200 us per client at 0.25 ns a spin.
        assertEquals(800_000, Calibration.spinsForWork(200_000, 0.25));
    }

    @Test
    void aSpinsCpuCostIsWhatTheClientsSpentLessTheHops() {
        // 14 clients x 20 cycles = 280 iterations of 1M spins, 5 us of hops each, 141.4 ms
        // of CPU in all: (141.4 ms - 280 x 5 us) / 280M = 0.5 ns a spin.
        assertEquals(0.5, Calibration.nsPerSpinFromCpu(141_400_000, 280, 5_000, 1_000_000), 1e-9);
        // Nothing counted, no spins, or less CPU than the hops alone: the window says nothing.
        assertEquals(0, Calibration.nsPerSpinFromCpu(141_400_000, 0, 5_000, 1_000_000));
        assertEquals(0, Calibration.nsPerSpinFromCpu(141_400_000, 280, 5_000, 0));
        assertEquals(0, Calibration.nsPerSpinFromCpu(1_000_000, 280, 5_000, 1_000_000));
    }

    @Test
    void medianOfTheFirstValues() {
        assertEquals(3, Calibration.median(new long[] {5, 1, 3, 99, 99}, 3));
        assertEquals(2, Calibration.median(new long[] {4, 1, 3, 0}, 2));
        assertEquals(0, Calibration.median(new long[] {7}, 0));
    }
}
