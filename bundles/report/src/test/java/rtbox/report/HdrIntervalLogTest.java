package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;

class HdrIntervalLogTest {
    private static String encoded(long... values) {
        Histogram h = new Histogram(1, 60_000_000_000L, 3);
        for (long v : values) {
            h.recordValue(v);
        }
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(b);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(b.array(), n));
    }

    private static RunReport report(long start, String encoded) {
        rtbox.api.result.Histogram empty = new rtbox.api.result.Histogram(1000, new long[1], 0, 0, 0, 0, 0, 0, 0, 0);
        ThreadResult t = new ThreadResult(0, 1, 1, "fifo", 80, 3, 0, empty, new CorrectedLatency(3, 0, 0, 0, 0, encoded),
                List.of(), 0);
        ProbeResult r = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1, true, List.of(t), Map.of(), List.of());
        return new RunReport(1, "id", start, start + 10_000, "cmd", r, empty, List.of(), Map.of(), List.of(),
                new SystemInfo(Map.of()), new Verdict(Verdict.Outcome.PASS, List.of(), ""));
    }

    @Test
    void oneTaggedIntervalPerCellThatHdrHistogramReadsBack() {
        String log = HdrIntervalLog.render(List.of(new ReportCell("fifo x idle", report(1_000_000, encoded(50_000, 60_000, 70_000))),
                new ReportCell("fifo x pipe", report(1_020_000, encoded(2_000_000)))));
        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log.getBytes(StandardCharsets.UTF_8)));
        List<EncodableHistogram> read = new ArrayList<>();
        EncodableHistogram h;
        while ((h = reader.nextIntervalHistogram()) != null) {
            read.add(h);
        }
        assertEquals(2, read.size());
        assertEquals("fifo_x_idle/cpu1", read.get(0).getTag());
        assertEquals(3, ((Histogram) read.get(0)).getTotalCount());
        assertEquals(20.0, read.get(1).getStartTimeStamp() / 1000.0 - read.get(0).getStartTimeStamp() / 1000.0, 0.001);
        assertEquals(2_000_000, ((Histogram) read.get(1)).getMaxValue(), 2_000);
    }

    @Test
    void aMissingHistogramIsSkipped() {
        assertNull(HdrIntervalLog.decode(""));
        assertNull(HdrIntervalLog.decode("not base64 at all!"));
    }
}
