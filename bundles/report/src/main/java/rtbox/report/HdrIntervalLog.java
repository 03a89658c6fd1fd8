package rtbox.report;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;

/**
 * Writes HdrHistogram's interval log (the format HistogramLogAnalyzer and
 * HdrHistogram's own tools read): one interval per cell and measuring thread,
 * spanning that cell's run, tagged "cell/cpuN", holding the coordinated-omission-
 * corrected wake-up latencies in nanoseconds.
 */
public final class HdrIntervalLog {
    private HdrIntervalLog() {
    }

    public static String render(List<ReportCell> cells) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            HistogramLogWriter log = new HistogramLogWriter(out);
            log.outputComment("rtbox: coordinated-omission-corrected wake-up latency in ns, one interval per cell"
                    + " and thread, tagged cell/cpuN");
            log.outputLogFormatVersion();
            long base = cells.stream().mapToLong(c -> c.report().startedEpochMs()).min().orElse(0);
            log.setBaseTime(base);
            log.outputBaseTime(base);
            log.outputStartTime(base);
            log.outputLegend();
            for (ReportCell c : cells) {
                RunReport r = c.report();
                for (ThreadResult t : r.result().threads()) {
                    Histogram h = decode(t.corrected().encoded());
                    if (h == null) {
                        continue;
                    }
                    h.setStartTimeStamp(r.startedEpochMs());
                    h.setEndTimeStamp(Math.max(r.endedEpochMs(), r.startedEpochMs() + 1));
                    h.setTag((c.name() + "/cpu" + t.cpu()).replaceAll("[\\s,]+", "_"));
                    log.outputIntervalHistogram(h);
                }
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    static Histogram decode(String encoded) {
        if (encoded == null || encoded.isEmpty()) {
            return null;
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
        } catch (DataFormatException | IllegalArgumentException e) {
            return null;
        }
    }
}
