package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RtThrottling;

class ThrottlingAttributionTest {
    private static ThreadResult thread(String policy, List<Spike> spikes) {
        Histogram h = new Histogram(1000, new long[10], 0, 1000, 100, 50_000_000, 200, 1000, 2000, 3000);
        return new ThreadResult(0, 1, 123, policy, 99, 1000, 0, h, null, spikes, 0);
    }

    @Test
    void runnerLabelsThrottlingBeforeJvmPauses() {
        List<Spike> spikes = List.of(new Spike(0, 1_000_000_000L, 50_000_000, "", ""),
                new Spike(0, 2_000_000_000L, 50_000_000, "", ""), new Spike(0, 2_500_000_000L, 900_000, "", ""));
        // A safepoint that overlaps the first stall (it waited for the throttled thread).
        List<JvmStall> jvm = List.of(new JvmStall(960_000_000L, 40_000_000, "safepoint", "G1"));
        List<Spike> l = Attribution.label(thread("fifo", spikes), jvm, List.of(),
                new RtThrottling.Settings(950_000, 1_000_000), 3_000_000_000L);
        assertEquals(RtThrottling.CAUSE, l.get(0).cause());
        assertEquals(RtThrottling.CAUSE, l.get(1).cause());
        assertEquals(Attribution.UNEXPLAINED, l.get(2).cause());
        List<Spike> other = Attribution.label(thread("other", spikes), jvm, List.of(),
                new RtThrottling.Settings(950_000, 1_000_000), 3_000_000_000L);
        assertEquals(Attribution.JVM, other.get(0).cause());
        assertEquals(Attribution.UNEXPLAINED, other.get(1).cause());
    }
}
