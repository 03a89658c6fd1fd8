package rtbox.mqtt.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

class CodecTest {
    static final Instant T = Instant.parse("2026-12-02T12:40:03.100Z");

    static Figures figures() {
        ThreadFigures t = new ThreadFigures(0, 1, "fifo", 80, 1000, 52.1, Double.NaN, 61, 88, 120, 131.4, 0, 2,
                new long[] {0, 3, 997});
        return new Figures(1.0, 1000, 52.1, 61, 88, 120, 131.4, 0, 2, 1.0, new long[] {0, 3, 997}, List.of(t));
    }

    static JsonObject report() {
        JsonObject r = new JsonObject();
        r.addProperty("probe", "timer");
        r.addProperty("jitter", 1.5);
        return r;
    }

    /** Encoding, decoding and encoding again gives the same bytes, and decoding checks the topic. */
    private static <T extends Message> T roundTrip(T m) throws ProtocolException {
        byte[] once = Codec.encode(m);
        Message back = Codec.decode(Topics.of(m), once);
        assertEquals(m.getClass(), back.getClass());
        assertEquals(new String(once, StandardCharsets.UTF_8), new String(Codec.encode(back), StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        T t = (T) back;
        return t;
    }

    @Test
    void statusOnlineAndOffline() throws Exception {
        Status on = new Status("a1", T, "online", T, true, "r1", null, "smoke", 2, 3, 40L, List.of("timer"),
                List.of("pipe"), 0L, 0L, "rtbox 0.1.0 (git 5d51b53)");
        assertEquals(on, roundTrip(on));
        assertTrue(new String(Codec.encode(on), java.nio.charset.StandardCharsets.UTF_8)
                .contains("\"rtbox_version\":\"rtbox 0.1.0 (git 5d51b53)\""));
        // the kernel, its preemption model and the image's boot entry (1.6)
        Status rt = new Status("a1", T, "online", T, false, null, null, null, null, null, null, List.of("timer"),
                List.of(), 0L, 0L, "rtbox 0.1.0", null, "6.1.0-57-rt-686-pae", "PREEMPT_RT", "rt");
        Status rtBack = roundTrip(rt);
        assertEquals(rt, rtBack);
        assertEquals("PREEMPT_RT", rtBack.preemption());
        assertTrue(new String(Codec.encode(rt), StandardCharsets.UTF_8)
                .contains("\"kernel\":\"6.1.0-57-rt-686-pae\",\"preemption\":\"PREEMPT_RT\",\"boot_entry\":\"rt\""));
        Status off = Status.offline("a1", T, T);
        Status back = roundTrip(off);
        assertEquals(off, back);
        assertTrue(!back.online());
        assertEquals("rtbox/v1/up/a1/status", Topics.of(off));
    }

    @Test
    void progressOfARunAndOfAPlanCell() throws Exception {
        Progress run = new Progress("a1", T, "r1", 3, "timer", 30, null);
        assertEquals(run, roundTrip(run));
        Progress cell = new Progress("a1", T, "r1", 1, null, 0, new PlanCell("smoke", 1, 2, "idle"));
        assertEquals(cell, roundTrip(cell));
        assertTrue(new String(Codec.encode(cell), StandardCharsets.UTF_8).contains("\"kind\":\"plan\""));
    }

    @Test
    void resultOfARunWithFigures() throws Exception {
        Result r = new Result("a1", T, "r1", 11, "timer", Outcome.PASS, "max 131.4 us <= 2000 us", true, T,
                T.plusSeconds(1), figures(), report(), null);
        Result back = roundTrip(r);
        assertEquals(131.4, back.figures().maxUs());
        assertArrayEquals(new long[] {0, 3, 997}, back.figures().histogram());
        assertTrue(Double.isNaN(back.figures().threads().get(0).avgUs()), "NaN is written as nothing, read as NaN");
        assertEquals(report(), back.report());
        String json = new String(Codec.encode(r), StandardCharsets.UTF_8);
        assertTrue(json.startsWith("{\"schema\":1,\"type\":\"result\",\"timestamp\":\"2026-12-02T12:40:03.100Z\","
                + "\"appliance\":\"a1\",\"run\":\"r1\",\"sequence\":11,"), json);
        assertTrue(json.contains("\"max_us\":131.4") && json.contains("\"histogram_bucket_us\":1.0"), json);
    }

    /** A report written into the payload as it is encoded gives the bytes its tree gives, in the same place. */
    @Test
    void aReportWriterWritesWhereTheTreeWould() throws Exception {
        Result tree = new Result("a1", T, "r1", 11, "timer", Outcome.PASS, "ok", true, T, T, figures(), report(), null);
        Result bare = new Result("a1", T, "r1", 11, "timer", Outcome.PASS, "ok", true, T, T, figures(), null, null);
        Codec.ReportWriter writer = w -> {
            w.beginObject();
            w.name("probe").value("timer");
            w.name("jitter").value(1.5);
            w.name("absent").nullValue();
            w.endObject();
        };
        assertEquals(new String(Codec.encode(tree), StandardCharsets.UTF_8),
                new String(Codec.encode(bare, writer), StandardCharsets.UTF_8));
        // a run without figures: the report follows "ended", and the writer's null member is still left off
        Result noFigures = new Result("a1", T, "r1", 11, "timer", Outcome.PASS, "ok", true, T, T, null, null, null);
        String json = new String(Codec.encode(noFigures, writer), StandardCharsets.UTF_8);
        assertTrue(json.endsWith("\"ended\":\"2026-12-02T12:40:03.100Z\",\"report\":{\"probe\":\"timer\","
                + "\"jitter\":1.5}}"), json);
        Cell cell = new Cell("a1", T, "r1", 2, new PlanCell("smoke", 1, 2, "idle"), "timer", Outcome.PASS, "ok", true,
                T, T, figures(), report(), "fifo:80", Map.of(), List.of(), Map.of());
        Cell bareCell = new Cell("a1", T, "r1", 2, new PlanCell("smoke", 1, 2, "idle"), "timer", Outcome.PASS, "ok",
                true, T, T, figures(), null, "fifo:80", Map.of(), List.of(), Map.of());
        assertEquals(new String(Codec.encode(cell), StandardCharsets.UTF_8),
                new String(Codec.encode(bareCell, writer), StandardCharsets.UTF_8));
        assertEquals(report(), ((Cell) Codec.decode(Codec.encode(bareCell, writer))).report());
        assertThrows(IllegalArgumentException.class, () -> Codec.encode(tree, writer), "two reports");
    }

    @Test
    void lastSampleTravelsAndIsOptionalButStrict() throws Exception {
        ThreadFigures t = new ThreadFigures(0, 1, "fifo", 80, 1000, 52.1, 60, 61, 88, 120, 131.4, 0, 2,
                new long[] {0, 3, 997}, 57.3);
        Figures f = new Figures(1.0, 1000, 52.1, 61, 88, 120, 131.4, 0, 2, 1.0, new long[] {0, 3, 997}, List.of(t));
        Result r = new Result("a1", T, "r1", 11, "timer", Outcome.MEASURED, "no thresholds given", true, T,
                T.plusSeconds(1), f, null, null);
        assertEquals(57.3, roundTrip(r).figures().threads().get(0).lastUs());
        String json = new String(Codec.encode(r), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"last_us\":57.3"), json);
        // From an appliance before 1.2: no last_us, read as unknown.
        String old = json.replace(",\"last_us\":57.3", "");
        Result fromOld = (Result) Codec.decode(Topics.of(r), old.getBytes(StandardCharsets.UTF_8));
        assertEquals(null, fromOld.figures().threads().get(0).lastUs());
        // Present but not a number: refused, naming where.
        String bad = json.replace("\"last_us\":57.3", "\"last_us\":\"57\"");
        ProtocolException e = org.junit.jupiter.api.Assertions.assertThrows(ProtocolException.class,
                () -> Codec.decode(Topics.of(r), bad.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("last_us") && e.getMessage().contains("expected a number"), e.getMessage());
    }

    @Test
    void resultThatCouldNotMeasure() throws Exception {
        Result r = new Result("a1", T, "r1", 2, "timer", Outcome.ERROR, "no such probe", false, null, null, null,
                null, null);
        assertEquals(r, roundTrip(r));
    }

    @Test
    void measuredWithoutThresholdsTravelsAsMeasured() throws Exception {
        Result plan = new Result("a1", T, "r1", 5, null, Outcome.MEASURED, "no thresholds given", true, T, T,
                null, null, new PlanOutcome("smoke", "complete", 1, 1, List.of(
                        new CellLine(1, "idle", 2, Outcome.MEASURED, 80, 0, 0)), null));
        assertEquals(plan, roundTrip(plan));
        assertTrue(new String(Codec.encode(plan), java.nio.charset.StandardCharsets.UTF_8)
                .contains("\"verdict\":\"MEASURED\""));
    }

    @Test
    void planResultAndAFailedOne() throws Exception {
        Result plan = new Result("a1", T, "r1", 5, null, Outcome.FAIL, "cell 2 failed", true, T, T,
                null, null, new PlanOutcome("smoke", "complete", 2, 2, List.of(
                        new CellLine(1, "idle", 2, Outcome.PASS, 80, 0, 0),
                        new CellLine(2, "pipe", 4, Outcome.FAIL, 3000, 1, 0)), "a smoke test"));
        assertEquals(plan, roundTrip(plan));
        Result failed = new Result("a1", T, "r1", 5, null, Outcome.ERROR, "journal unwritable", false, null, null,
                null, null, new PlanOutcome("smoke", null, 2, null, null, null));
        assertEquals(failed, roundTrip(failed));
    }

    @Test
    void cellWithAndWithoutFigures() throws Exception {
        Map<String, String> axes = new LinkedHashMap<>();
        axes.put("load", "pipe");
        Cell c = new Cell("a1", T, "r1", 2, new PlanCell("smoke", 1, 2, "idle"), "timer", Outcome.INCONCLUSIVE,
                "a JVM pause", true, T, T, figures(), report(), "fifo:80", axes, List.of("pipe:mode=rtt"),
                Map.of("sched_rt_runtime_us", "950000 -> -1"));
        Cell back = roundTrip(c);
        assertEquals(axes, back.axes());
        assertEquals(List.of("pipe:mode=rtt"), back.loads());
        assertEquals("950000 -> -1", back.tuner().get("sched_rt_runtime_us"));
        Cell error = new Cell("a1", T, "r1", 4, new PlanCell("smoke", 2, 2, "pipe"), null, Outcome.ERROR,
                "no workload pipe", false, T, T, null, null, null, Map.of(), List.of(), Map.of());
        assertEquals(error, roundTrip(error));
    }

    @Test
    void replyAndReplyWithoutRequestId() throws Exception {
        JsonObject body = new JsonObject();
        body.addProperty("run", "r1");
        Reply r = new Reply("a1", T, "q1", "run", 200, "started", body);
        assertEquals(r, roundTrip(r));
        assertEquals("rtbox/v1/up/a1/reply/q1", Topics.of(r));
        Reply none = new Reply("a1", T, null, "run", 400, "requestId is missing", new JsonObject());
        assertEquals("rtbox/v1/up/a1/reply/none", Topics.of(none));
        assertEquals(none, roundTrip(none));
    }

    @Test
    void commandRoundTripAndEnvelope() throws Exception {
        JsonObject body = new JsonObject();
        body.addProperty("probe", "timer");
        Command c = new Command("a1", "run", "q1", T, body);
        assertEquals("rtbox/v1/down/a1/cmd/run", Topics.of(c));
        Command back = roundTrip(c);
        assertEquals(c, back);
        assertEquals(body, back.body(), "the envelope is not part of the body");
        assertTrue(back.expiredAt(T.plusMillis(1)));
        Command epoch = Codec.decodeCommand("rtbox/v1/down/a1/cmd/status",
                ("{\"requestId\":\"q2\",\"expires\":" + T.toEpochMilli() + "}").getBytes(StandardCharsets.UTF_8));
        assertEquals(T, epoch.expires());
        assertEquals("status", epoch.verb());
    }

    private static ProtocolException bad(String topic, String payload) {
        return assertThrows(ProtocolException.class,
                () -> Codec.decode(topic, payload.getBytes(StandardCharsets.UTF_8)));
    }

    static final String RESULT = "rtbox/v1/up/a1/runs/r1/result";

    @Test
    void badPayloadsNameWhatIsWrong() {
        assertEquals("payload", bad(RESULT, "").field());
        assertEquals("payload", bad(RESULT, "{\"schema\":1,").field());
        String lenient = bad(RESULT, "{'schema':1}").getMessage();
        assertTrue(lenient.startsWith("payload: not valid JSON"), lenient);
        assertEquals("payload", bad(RESULT, "{\"a\":1} {}").field());
        assertEquals("$.a", bad(RESULT, "{\"a\":1,\"a\":2}").field());
        assertEquals("payload", bad(RESULT, "{\"a\":NaN}").field());
        assertEquals("$", bad(RESULT, "[1]").field());
        assertEquals("$.schema", bad(RESULT, "{\"schema\":2,\"type\":\"result\"}").field());
        assertEquals("$.schema", bad(RESULT, "{\"schema\":\"1\",\"type\":\"result\"}").field());
        assertEquals("$.type", bad(RESULT, "{\"schema\":1,\"type\":\"hello\"}").field());
        String ok = new String(Codec.encode(new Result("a1", T, "r1", 2, "timer", Outcome.ERROR, "x", false, null,
                null, null, null, null)), StandardCharsets.UTF_8);
        ProtocolException e = bad(RESULT, ok.replace("\"sequence\":2", "\"sequence\":\"2\""));
        assertEquals("$.sequence", e.field());
        assertEquals("$.sequence: expected a number, got \"2\"", e.getMessage());
        assertEquals("$.sequence", bad(RESULT, ok.replace("\"sequence\":2", "\"sequence\":2.5")).field());
        assertEquals("$.sequence", bad(RESULT, ok.replace("\"sequence\":2", "\"sequence\":0")).field());
        assertEquals("$.verdict", bad(RESULT, ok.replace("\"ERROR\"", "\"MAYBE\"")).field());
        assertEquals("$.reason", bad(RESULT, ok.replace("\"reason\":\"x\",", "")).field());
        assertEquals("$.timestamp", bad(RESULT, ok.replace("2026-12-02T12:40:03.100Z", "yesterday")).field());
        assertEquals("$.appliance", bad("rtbox/v1/up/a2/runs/r1/result", ok).field());
        assertEquals("$.run", bad("rtbox/v1/up/a1/runs/r2/result", ok).field());
        assertEquals("$.type", bad("rtbox/v1/up/a1/runs/r1/progress", ok).field());
        assertEquals("topic", bad("rtbox/v2/up/a1/status", ok).field());
        assertEquals("topic", bad("rtbox/v1/up/a+b/status", ok).field());
        assertEquals("topic", bad("rtbox/v1/up/a1/runs/r1/whatever", ok).field());
    }

    @Test
    void badFiguresNameTheirPath() throws Exception {
        String ok = new String(Codec.encode(new Result("a1", T, "r1", 11, "timer", Outcome.PASS, "ok", true, T, T,
                figures(), null, null)), StandardCharsets.UTF_8);
        assertEquals("$.threads[0].cpu", bad(RESULT, ok.replace("\"cpu\":1", "\"cpu\":\"one\"")).field());
        assertEquals("$.histogram[2]", bad(RESULT, ok.replace("[0,3,997],\"threads\"", "[0,3,-0.5],\"threads\"")).field());
        // Issue 31: a negative latency, count or histogram count, and 1e999, were stored by a control room.
        String[][] cases = {
            {"\"max_us\":", "-5", "$.max_us"},
            {"\"p99_us\":", "-0.1", "$.p99_us"},
            {"\"samples\":", "-1", "$.samples"},
            {"\"missed_deadlines\":", "-2", "$.missed_deadlines"},
            {"\"max_us\":", "1e999", "$.max_us"},
            {"\"histogram\":[", "-7,", "$.histogram[0]"},
        };
        for (String[] c : cases) {
            int i = ok.indexOf(c[0]) + c[0].length();
            int j = c[0].endsWith("[") ? i : endOfNumber(ok, i);
            ProtocolException e = bad(RESULT, ok.substring(0, i) + c[1] + ok.substring(j));
            assertEquals(c[2], e.field(), c[1] + ": " + e.getMessage());
        }
        String thread = ok.substring(ok.indexOf("\"threads\":"));
        int i = ok.indexOf("\"threads\":") + thread.indexOf("\"min_us\":") + "\"min_us\":".length();
        assertEquals("$.threads[0].min_us", bad(RESULT, ok.substring(0, i) + "-3" + ok.substring(endOfNumber(ok, i)))
                .field());
        // Without samples (no figures read), a latency given is still checked: the control room stores it.
        String bare = new String(Codec.encode(new Result("a1", T, "r1", 2, "timer", Outcome.PASS, "x", true, null,
                null, null, null, null)), StandardCharsets.UTF_8);
        assertEquals("$.max_us", bad(RESULT, bare.replace("\"complete\":true", "\"complete\":true,\"max_us\":-5"))
                .field());
        assertTrue(bad(RESULT, bare.replace("\"complete\":true", "\"complete\":true,\"max_us\":-5")).getMessage()
                .contains("negative"));
        // A run id of dots alone is not an id (a run '..' was stored).
        assertEquals("topic", bad("rtbox/v1/up/a1/runs/../result", bare.replace("\"run\":\"r1\"", "\"run\":\"..\""))
                .field());
        assertEquals("$.run", assertThrows(ProtocolException.class, () -> Codec.decode(bare.replace("\"run\":\"r1\"",
                "\"run\":\"..\"").getBytes(StandardCharsets.UTF_8))).field());
    }

    private static int endOfNumber(String s, int from) {
        int j = from;
        while (j < s.length() && "-+.0123456789eE".indexOf(s.charAt(j)) >= 0) {
            j++;
        }
        return j;
    }

    @Test
    void badCommandsCarryTheirRequestId() {
        String topic = "rtbox/v1/down/a1/cmd/run";
        ProtocolException e = bad(topic, "{\"expires\":\"2030-01-01T00:00:00Z\"}");
        assertEquals("$.requestId", e.field());
        assertNull(e.requestId());
        assertTrue(e.getMessage().contains("rtbox/v1/up/a1/reply/REQUESTID"), e.getMessage());
        assertEquals("$.requestId", bad(topic, "{\"requestId\":\"a/b\",\"expires\":\"2030-01-01T00:00:00Z\"}").field());
        e = bad(topic, "{\"requestId\":\"q1\"}");
        assertEquals("$.expires", e.field());
        assertEquals("q1", e.requestId());
        assertEquals("$.expires", bad(topic, "{\"requestId\":\"q1\",\"expires\":\"soon\"}").field());
        e = bad(topic, "{\"requestId\":\"q1\",\"expires\":\"2030-01-01T00:00:00Z\",\"appliance\":\"a2\"}");
        assertEquals("$.appliance", e.field());
        assertEquals("q1", e.requestId());
        assertEquals("$.schema", bad(topic, "{\"requestId\":\"q1\",\"expires\":\"2030-01-01T00:00:00Z\",\"schema\":2}")
                .field());
        assertEquals("topic", assertThrows(ProtocolException.class, () -> Codec.decodeCommand(RESULT, new byte[] {'{',
                '}'})).field());
    }

    @Test
    void decodeAsATypeAndWithoutTopic() throws Exception {
        Progress p = new Progress("a1", T, "r1", 3, "timer", 30, null);
        byte[] b = Codec.encode(p);
        assertInstanceOf(Progress.class, Codec.decode(b));
        assertEquals(p, Codec.decode(Topics.of(p), b, Progress.class));
        assertEquals("$.type", assertThrows(ProtocolException.class,
                () -> Codec.decode(Topics.of(p), b, Result.class)).field());
    }

    /**
     * decodeWithJson: one parse gives the typed message and the JSON tree, numbers as they
     * were written; the strict checks hold on that path too (a repeated member named by its
     * path, a histogram count that is not a whole number, a command topic).
     */
    @Test
    void decodeWithJsonReadsOnceAndStaysStrict() throws Exception {
        Result r = new Result("a1", T, "r1", 4, "timer", Outcome.PASS, "ok", true, T, T, figures(), report(), null);
        byte[] b = Codec.encode(r);
        Decoded d = Codec.decodeWithJson(Topics.of(r), b);
        assertEquals(new String(b, StandardCharsets.UTF_8), new String(Codec.encode(d.message()), StandardCharsets.UTF_8));
        assertEquals("ok", d.json().get("reason").getAsString());
        assertEquals(4, d.json().get("sequence").getAsLong());
        String json = new String(b, StandardCharsets.UTF_8);
        ProtocolException twice = assertThrows(ProtocolException.class, () -> Codec.decodeWithJson(Topics.of(r),
                json.replace("\"reason\":\"ok\"", "\"reason\":\"ok\",\"reason\":\"again\"").getBytes(StandardCharsets.UTF_8)));
        assertEquals("$.reason", twice.field());
        assertTrue(twice.getMessage().contains("given twice"), twice.getMessage());
        String hist = json.substring(json.indexOf("\"histogram\":[") + "\"histogram\":[".length());
        String first = hist.substring(0, hist.indexOf(','));
        for (String bad : new String[] {"1.5", "12345678901234567890123"}) {
            ProtocolException e = assertThrows(ProtocolException.class, () -> Codec.decodeWithJson(Topics.of(r),
                    first(json, "\"histogram\":[" + first + ",", "\"histogram\":[" + bad + ",")
                            .getBytes(StandardCharsets.UTF_8)));
            assertEquals("$.histogram[0]", e.field(), bad);
        }
        // 18 digits and a negative count's sign parse exactly on the fast path, more digits through BigDecimal
        assertEquals(123456789012345678L, Codec.decodeWithJson(Topics.of(r), first(json, "\"histogram\":[" + first
                + ",", "\"histogram\":[123456789012345678,").getBytes(StandardCharsets.UTF_8)).json()
                .getAsJsonArray("histogram").get(0).getAsLong());
        assertEquals("topic", assertThrows(ProtocolException.class,
                () -> Codec.decodeWithJson("rtbox/v1/down/a1/cmd/run", b)).field());
    }

    /** {@code s} with the first {@code what} (the top level's histogram, written before the threads') replaced. */
    private static String first(String s, String what, String with) {
        int i = s.indexOf(what);
        return s.substring(0, i) + with + s.substring(i + what.length());
    }

    @Test
    void topicsParse() throws Exception {
        assertEquals(new Topic(Topic.Kind.CELL, "a1", "r-1.2", null, null), Topics.parse("rtbox/v1/up/a1/runs/r-1.2/cell"));
        assertEquals(new Topic(Topic.Kind.REPLY, "a1", null, "q1", null), Topics.parse("rtbox/v1/up/a1/reply/q1"));
        assertEquals(new Topic(Topic.Kind.COMMAND, "a1", null, null, "get-config"),
                Topics.parse("rtbox/v1/down/a1/cmd/get-config"));
        assertEquals("rtbox/v1/down/a1/cmd/get-config", Topics.parse("rtbox/v1/down/a1/cmd/get-config").toString());
        assertEquals("run id 'x y' may hold only letters, digits, '.', '_' and '-' (at most 64), not dots alone",
                Topics.checkId("run id", "x y"));
        assertNull(Topics.checkId("run id", "x_y"));
        assertNull(Topics.checkId("run id", "r-1.2"));
        assertNull(Topics.checkId("run id", ".x."));
        for (String dots : new String[] {".", "..", "..."}) {
            assertTrue(Topics.checkId("run id", dots).endsWith("not dots alone"), dots);
        }
    }
}
