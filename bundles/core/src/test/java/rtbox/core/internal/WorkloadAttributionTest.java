package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;

class WorkloadAttributionTest {
    private static ThreadResult thread(Spike... spikes) {
        Histogram h = new Histogram(1000, new long[10], 0, 100, 10_000, 2_000_000, 50_000, 50_000, 2_000_000,
                2_000_000);
        return new ThreadResult(0, 1, 1, "fifo", 80, 100, 0, h, new CorrectedLatency(100, 0, 0, 0, 0, ""),
                List.of(spikes), 0);
    }

    @Test
    void spikeInsideABusyWindowIsTheWorkloads() {
        // The disturber spun from 1.000 s to 1.002 s; the probe's deadline at 1.0001 s woke at 1.0021 s.
        Spike in = new Spike(0, 1_002_100_000L, 2_000_000, "", "");
        Spike out = new Spike(0, 1_502_100_000L, 2_000_000, "", "");
        List<JvmStall> busy = List.of(new JvmStall(1_000_000_000L, 2_000_000, "workload", "disturber"));
        List<Spike> l = Attribution.label(thread(in, out), List.of(), List.of(), null, 0, busy);
        assertEquals(Attribution.WORKLOAD, l.get(0).cause());
        assertTrue(l.get(0).detail().startsWith("disturber was busy for 2000 us"), l.get(0).detail());
        assertEquals(Attribution.UNEXPLAINED, l.get(1).cause());
    }

    @Test
    void aJvmPauseStillComesFirst() {
        Spike in = new Spike(0, 1_002_100_000L, 2_000_000, "", "");
        List<JvmStall> busy = List.of(new JvmStall(1_000_000_000L, 2_000_000, "workload", "disturber"));
        List<JvmStall> jvm = List.of(new JvmStall(1_000_500_000L, 1_000_000, "safepoint", "G1"));
        assertEquals(Attribution.JVM, Attribution.label(thread(in), jvm, List.of(), null, 0, busy).get(0).cause());
    }
}
