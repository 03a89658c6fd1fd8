package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.core.toolkit.LatencyRecorder;

class SamplePrinterTest {
    private static LatencyRecorder measuring(int thread, int kept) {
        LatencyRecorder r = new LatencyRecorder(thread, thread, 100, 1_000_000, kept, 0);
        r.record(77_000, 0); // a warm-up sample: never printed
        r.reset(0, Long.MAX_VALUE);
        return r;
    }

    @Test
    void printsEachSampleAsCyclictestDoes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SamplePrinter p = new SamplePrinter(out);
        LatencyRecorder t0 = measuring(0, 16), t1 = measuring(1, 16);
        p.add(t0);
        p.add(t1);
        t0.record(91_400, 1);
        t0.record(98_500, 2);
        t1.record(1_234_567_000, 3);
        assertEquals(3, p.drain());
        assertEquals(List.of(
                "       0:       0:      91",
                "       0:       1:      99",
                "       1:       0: 1234567"), out.toString(StandardCharsets.US_ASCII).lines().toList());
        t0.record(5_000, 4);
        out.reset();
        assertEquals(1, p.drain(), "only what is new");
        assertEquals("       0:       2:       5\n", out.toString(StandardCharsets.US_ASCII));
        assertEquals(0, p.lost());
    }

    @Test
    void samplesOverwrittenBeforePrintingAreCountedNotMisnumbered() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SamplePrinter p = new SamplePrinter(out);
        LatencyRecorder t = measuring(0, 4);
        p.add(t);
        for (int i = 0; i < 10; i++) {
            t.record(i * 1000L, i);
        }
        assertEquals(3, p.drain());
        assertEquals(List.of(
                "       0:       7:       7",
                "       0:       8:       8",
                "       0:       9:       9"), out.toString(StandardCharsets.US_ASCII).lines().toList());
        assertEquals(7, p.lost());
    }
}
