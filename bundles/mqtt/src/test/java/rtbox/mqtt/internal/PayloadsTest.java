package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

import rtbox.api.result.RunReport;
import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.PlanCell;
import rtbox.mqtt.protocol.Result;

/**
 * The report written into a payload in one pass ({@link Payloads#reportWriter}) against the
 * Gson tree that carried it before: the same bytes, on a real report (a graph cell's, 20,000
 * latency counts and 10,000 JVM-hiccup counts, nearly all 0) with figures that are not finite.
 */
class PayloadsTest {
    /** The real report, with a NaN and an infinity among its figures (JSON has neither). */
    private static RunReport report() throws IOException {
        String text;
        try (InputStream in = PayloadsTest.class.getResourceAsStream("graph-report.json")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String withNan = text.replace("\"xruns_jvm\": 0.0", "\"xruns_jvm\": NaN, \"ratio\": Infinity");
        assertFalse(withNan.equals(text), "the fixture's figures changed: no xruns_jvm");
        return Payloads.GSON.fromJson(withNan, RunReport.class);
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aResultsReportStreamedIsTheTreeByteForByte() throws Exception {
        RunReport r = report();
        JsonObject tree = Payloads.GSON.toJsonTree(r).getAsJsonObject();
        Result bare = new Result("a1", Instant.EPOCH, "r1", 3, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(r), null, null);
        Result withTree = new Result("a1", Instant.EPOCH, "r1", 3, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(r), tree, null);
        String streamed = utf8(Codec.encode(bare, Payloads.reportWriter(r)));
        assertEquals(utf8(Codec.encode(withTree)), streamed);
        assertFalse(streamed.contains("NaN") || streamed.contains("Infinity") || streamed.contains("xruns_jvm"),
                "a figure that is not finite is left off");
        assertTrue(streamed.contains("\"dsp_load_pct\":50.094386211894054"), "finite figures kept as written");
        // and the strict reader takes it, the report's counts all there
        Result back = (Result) Codec.decode(streamed.getBytes(StandardCharsets.UTF_8));
        assertEquals(20_000, back.report().getAsJsonObject("result").getAsJsonArray("threads").get(0)
                .getAsJsonObject().getAsJsonObject("latency").getAsJsonArray("counts").size());
    }

    @Test
    void aCellsReportStreamedIsTheTreeByteForByte() throws Exception {
        RunReport r = report();
        JsonObject tree = Payloads.GSON.toJsonTree(r).getAsJsonObject();
        PlanCell pc = new PlanCell("seed-004", 1, 16, "graph iso@100:80");
        Cell bare = new Cell("a1", Instant.EPOCH, "r1", 2, pc, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(r), null, "iso@100", Map.of("policy", "iso@100"), List.of("none"),
                Map.of("iso_cpu", "100"));
        Cell withTree = new Cell("a1", Instant.EPOCH, "r1", 2, pc, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(r), tree, "iso@100", Map.of("policy", "iso@100"), List.of("none"),
                Map.of("iso_cpu", "100"));
        assertEquals(utf8(Codec.encode(withTree)), utf8(Codec.encode(bare, Payloads.reportWriter(r))));
    }

    @Test
    void theResultPayloadCarriesTheReport() throws Exception {
        RunReport r = report();
        Result back = (Result) Codec.decode(Payloads.result("a1", "r1", 5, r));
        assertEquals(5, back.sequence());
        assertEquals(r.runId(), back.report().get("runId").getAsString());
        assertEquals(10_000, back.report().getAsJsonObject("jvmHiccups").getAsJsonArray("counts").size());
    }

    /** The pWCET estimate (issue 36) travels in the report as it is: the MQTT result carries it. */
    @Test
    void theResultPayloadCarriesThePwcetEstimate() throws Exception {
        RunReport r = report();
        rtbox.api.result.PwcetFit fit = new rtbox.api.result.PwcetFit(100_000, 15_000, 0, 0, 0, -700);
        rtbox.api.result.Pwcet p = new rtbox.api.result.Pwcet(1000, 1_000_000, List.of(new rtbox.api.result.PwcetEstimate(
                "cpu0", 3, new long[] {90_000, 120_000, 101_000}, List.of("ordinary", "late wake-up", "ordinary"),
                List.of(new rtbox.api.result.PwcetCheck("blocks", 3.0, null, true, "3 block maxima of 1000 samples")),
                true, null, fit, fit, "gumbel", "exponential", 0,
                List.of(new rtbox.api.result.PwcetLevel(1e-9, "hour", 300_000, 250_000, 350_000)), List.of())));
        RunReport with = new RunReport(r.schema(), r.runId(), r.startedEpochMs(), r.endedEpochMs(), r.command(),
                r.result(), r.jvmHiccups(), r.jvmStalls(), r.workloads(), r.events(), r.system(), r.verdict(), p);
        JsonObject tree = Payloads.GSON.toJsonTree(with).getAsJsonObject();
        Result bare = new Result("a1", Instant.EPOCH, "r1", 3, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(with), null, null);
        Result withTree = new Result("a1", Instant.EPOCH, "r1", 3, "graph", Outcome.PASS, "ok", true, Instant.EPOCH,
                Instant.EPOCH, Payloads.figures(with), tree, null);
        assertEquals(utf8(Codec.encode(withTree)), utf8(Codec.encode(bare, Payloads.reportWriter(with))));
        Result back = (Result) Codec.decode(Payloads.result("a1", "r1", 5, with));
        JsonObject e = back.report().getAsJsonObject("pwcet").getAsJsonArray("estimates").get(0).getAsJsonObject();
        assertEquals(120_000, e.getAsJsonArray("maximaNs").get(1).getAsLong());
        assertEquals(350_000, e.getAsJsonArray("levels").get(0).getAsJsonObject().get("highNs").getAsDouble());
        assertFalse(e.getAsJsonArray("checks").get(0).getAsJsonObject().has("pValue"), "no p-value: left off, not NaN");
    }
}
