package rtbox.core.toolkit;

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
    void overflowsKeepTheirCycleNumbersUpToAsManyAsThereAreBuckets() {
        LatencyRecorder r = new LatencyRecorder(0, 2, 1_000_000);
        r.record(9_000, 1); // warm-up: forgotten by reset
        r.reset(0, Long.MAX_VALUE);
        r.record(500, 10);      // cycle 0, bucket 0
        r.record(2_000, 20);    // cycle 1, overflow
        r.record(1_000, 30);    // cycle 2, bucket 1
        r.record(7_000, 40);    // cycle 3, overflow
        r.record(3_000, 50);    // cycle 4, overflow: counted, its cycle not kept (cyclictest's "# 1 others")
        Histogram h = r.histogram();
        assertEquals(3, h.overflows());
        assertEquals(java.util.List.of(1L, 3L), java.util.Arrays.stream(h.overflowCycles()).boxed().toList());
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

    @Test
    void liveFiguresAreTheMeasurementsNotTheWarmUps() {
        LatencyRecorder r = new LatencyRecorder(2, 1, 100, 1_000_000, 0, 0);
        r.runningAs(4242);
        r.record(9_000, 1); // warm-up
        assertEquals(0, r.cycles(), "no live figures during warm-up");
        assertEquals(0, r.maxNs());
        r.reset(100, Long.MAX_VALUE);
        r.record(3_000, 200);
        r.record(1_000, 300);
        r.record(2_000, 400);
        assertEquals(3, r.cycles());
        assertEquals(1_000, r.minNs());
        assertEquals(2_000, r.lastNs(), "Act is the last sample, not the max");
        assertEquals(3_000, r.maxNs());
        assertEquals(6_000, r.sumNs());
        assertEquals(2, r.thread());
        assertEquals(1, r.cpu());
        assertEquals(4242, r.tid());
        assertEquals(0, r.samplesKept());
        assertEquals(-1, r.sampleNs(0), "no ring without -v");
    }

    @Test
    void ringKeepsTheLatestSamplesAndSaysWhichAreGone() {
        LatencyRecorder r = new LatencyRecorder(0, 0, 100, 1_000_000, 3, 0);
        assertEquals(4, r.samplesKept(), "rounded up to a power of two");
        for (int i = 0; i < 5; i++) {
            r.record(99_000, i); // warm-up: moves the ring, never printed
        }
        assertEquals(-1, r.sampleNs(0));
        r.reset(0, Long.MAX_VALUE);
        for (int i = 0; i < 7; i++) {
            r.record(10_000 + i, 10 + i);
        }
        // 7 samples through a ring of 4: 0-2 overwritten, 3 in the slot the writer fills next
        // (it may be writing it now, so it is not answered), 4-6 there.
        for (int c = 0; c < 4; c++) {
            assertEquals(-1, r.sampleNs(c), "sample " + c + " is gone or being overwritten");
        }
        for (int c = 4; c < 7; c++) {
            assertEquals(10_000 + c, r.sampleNs(c));
        }
        assertEquals(-1, r.sampleNs(7), "not measured yet");
    }

    @Test
    void breakMarksTheFirstMeasuredSampleOverTheLimit() {
        LatencyRecorder r = new LatencyRecorder(0, 0, 100, 1_000_000, 0, 50_000);
        r.record(90_000, 5); // warm-up: does not break
        assertTrue(!r.broken());
        r.reset(100, Long.MAX_VALUE);
        r.record(50_000, 200); // at the limit, as cyclictest (diff > limit): no break
        assertTrue(!r.broken());
        r.record(60_000, 300);
        r.record(70_000, 400);
        assertTrue(r.broken());
        assertEquals(200, r.breakOffsetNs());
        assertEquals(60_000, r.breakLatencyNs());
        assertEquals(3, r.samples(), "the breaking sample is counted, as cyclictest counts it");
        assertEquals(70_000, r.lastNs());
    }

    /** The pWCET's input: each block's largest sample with its time; a partial block left out; the warm-up forgotten. */
    @Test
    void blockMaximaAreEachBlocksLargestSampleWithItsTime() {
        LatencyRecorder r = new LatencyRecorder(0, 100, 1_000_000);
        r.record(999_999, 1); // warm-up
        r.reset(1_000, Long.MAX_VALUE);
        for (int i = 0; i < 3 * LatencyRecorder.BLOCK_SAMPLES + 10; i++) {
            // block k's largest is its sample 7 * (k + 1): 10_000 + k
            int k = i / LatencyRecorder.BLOCK_SAMPLES, j = i % LatencyRecorder.BLOCK_SAMPLES;
            r.record(j == 7 * (k + 1) ? 10_000 + k : 100 + j % 13, 1_000 + 1_000L * i);
        }
        rtbox.api.result.BlockMaxima b = r.blockMaxima();
        assertEquals(LatencyRecorder.BLOCK_SAMPLES, b.blockSamples());
        assertEquals(3, b.maxNs().length, "the last 10 samples are no full block");
        for (int k = 0; k < 3; k++) {
            assertEquals(10_000 + k, b.maxNs()[k]);
            assertEquals(1_000L * (k * LatencyRecorder.BLOCK_SAMPLES + 7 * (k + 1)), b.offsetNs()[k]);
        }
    }

    /** A run longer than the arrays merges neighbours: the block size doubles, the maxima stay the maxima. */
    @Test
    void fullBlockArraysMergeNeighboursAndDoubleTheBlockSize() {
        LatencyRecorder r = new LatencyRecorder(0, 100, 1_000_000);
        r.reset(0, Long.MAX_VALUE);
        long blocks = LatencyRecorder.MAX_BLOCKS + 2L; // one merge, then two more blocks of the old size: one of the new
        for (long i = 0; i < blocks * LatencyRecorder.BLOCK_SAMPLES; i++) {
            long k = i / LatencyRecorder.BLOCK_SAMPLES;
            r.record(i % LatencyRecorder.BLOCK_SAMPLES == 0 ? 1_000 + k : 1, i);
        }
        rtbox.api.result.BlockMaxima b = r.blockMaxima();
        assertEquals(2L * LatencyRecorder.BLOCK_SAMPLES, b.blockSamples());
        assertEquals(LatencyRecorder.MAX_BLOCKS / 2 + 1, b.maxNs().length);
        for (int k = 0; k < b.maxNs().length; k++) {
            // merged block k holds old blocks 2k and 2k+1; the later one's maximum is larger
            assertEquals(1_000 + 2 * k + 1, b.maxNs()[k]);
            assertEquals((2L * k + 1) * LatencyRecorder.BLOCK_SAMPLES, b.offsetNs()[k]);
        }
    }
}
