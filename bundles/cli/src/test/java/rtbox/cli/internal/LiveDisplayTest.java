package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.core.toolkit.LatencyRecorder;

class LiveDisplayTest {
    private static LatencyRecorder thread(int index, long... samplesNs) {
        LatencyRecorder r = new LatencyRecorder(index, index, 100, 1_000_000, 0, 0);
        r.runningAs(1900 + index);
        r.record(500_000, 0); // warm-up: not in the figures
        r.reset(0, Long.MAX_VALUE);
        for (long s : samplesNs) {
            r.record(s, 1);
        }
        return r;
    }

    @Test
    void terminalFrameIsCyclictestsTLinesWithActTheLastSample() {
        LiveDisplay d = new LiveDisplay(new PrintWriter(new StringWriter()), true, 0, "timer", 99, 200);
        d.add(thread(0, 12_000, 80_000, 9_000, 15_000));
        d.add(thread(1));
        d.progress(0.42);
        assertEquals(List.of(
                "rtbox: timer  42% (12 s)\033[K",
                "T: 0 ( 1900) P:99 I:200 C:      4 Min:      9 Act:   15 Avg:   29 Max:      80\033[K",
                "T: 1 ( 1901) P:99 I:200 C:      0 Min:      0 Act:    0 Avg:    0 Max:       0\033[K"),
                d.frame(12_345).lines().toList());
    }

    @Test
    void pipedLineIsOneLineForAllThreads() {
        LiveDisplay d = new LiveDisplay(new PrintWriter(new StringWriter()), false, 10_000, "timer", 0, 1000);
        d.add(thread(0, 3_000, 5_000));
        d.add(thread(1, 4_000));
        d.progress(0.5);
        assertEquals("rtbox: timer 50% (30 s): T:0 C:2 Min 3 Act 5 Avg 4 Max 5 us; T:1 C:1 Min 4 Act 4 Avg 4 Max 4 us",
                d.line(30_000));
    }
}
