package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;

/** The JSON report and cyclictest's JSON file: no NaN or infinity written, read back strictly. */
class ReportsJsonTest {
    /** The fixture with an average of no samples (NaN) and a workload figure that is infinite. */
    private static RunReport withNotFinite() {
        RunReport r = Fixtures.report("rtbox run timer");
        return new RunReport(r.schema(), r.runId(), r.startedEpochMs(), r.endedEpochMs(), r.command(), r.result(),
                new Histogram(1000, new long[10], 0, 0, 0, 0, Double.NaN, 0, 0, 0), r.jvmStalls(),
                Map.of("pipe", Map.of("rtt_us", Double.POSITIVE_INFINITY, "messages", 12.0)), r.events(), r.system(),
                r.verdict());
    }

    @Test
    void notFiniteFiguresAreNullInTheReportAndReadBackAsTheyWere() {
        RunReport r = withNotFinite();
        String json = Reports.json(r);
        assertFalse(json.contains("NaN") || json.contains("Infinity"), json);
        assertTrue(json.contains("\"avgNs\": null"), "the double written as null, not left out");
        RunReport back = Reports.fromJson(json);
        assertTrue(Double.isNaN(back.jvmHiccups().avgNs()), "NaN again, not 0");
        assertEquals(12.0, back.workloads().get("pipe").get("messages"));
        assertTrue(back.workloads().get("pipe").containsKey("rtt_us"));
        assertEquals(r.result().threads().get(0).latency().maxNs(), back.result().threads().get(0).latency().maxNs());
    }

    @Test
    void cyclictestsJsonLeavesANotFiniteFigureOut() {
        String json = Reports.cyclictestJson(withNotFinite());
        assertFalse(json.contains("NaN") || json.contains("Infinity"), json);
    }

    @Test
    void aReportIsReadStrictlyWithThePathOfWhatIsWrong() {
        String json = Reports.json(Fixtures.report("rtbox run timer"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Reports.fromJson(json.replaceFirst("\"startedEpochMs\": 0", "\"startedEpochMs\": 0.5")));
        assertTrue(e.getMessage().contains("$.startedEpochMs"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Reports.fromJson(json.replaceFirst("\"startedEpochMs\": 0", "\"startedEpochMs\": NaN")));
    }
}
