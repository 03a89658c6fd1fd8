package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Issue 17: the result journal grew 35 MB an hour of back-to-back plans without bound, and
 * {@code results} built every run of it in memory (no reply at 25 MB on the 48 MB heap). Now
 * {@code results} answers a page of summaries, read as a stream, with the way to the page
 * before; and the journal is bounded (journalMaxBytes of rtbox.plan): the plan that ends past
 * the bound drops the oldest runs, never its own.
 */
class MqttJournalIT extends MqttFixture {
    static final String A = MqttIT.A;
    static final int RUNS = 300;
    static final long BOUND = 8L * 1024 * 1024;

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, 30_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    @Test
    void aJournalOf30MbIsPagedAndBoundedByTheNextPlan() throws Exception {
        broker = new Mosquitto(brokerDir, false, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        Files.writeString(home.resolve("etc/rtbox.plan.cfg"), "journalMaxBytes=" + BOUND + "\n");
        Path journal = home.resolve("data/results.journal");
        List<String> ids = writeJournal(journal, RUNS, 100 * 1024);
        assertTrue(Files.size(journal) > 30_000_000L, Files.size(journal) + " bytes");
        rtbox.start("serve");
        awaitOnline();

        String req = control.command(A, "results", "\"limit\":5");
        ControlRoom.Received got = control.reply(A, req, 30_000);
        assertNotNull(got, "no reply to results; stderr: " + rtbox.err);
        JsonObject r = got.json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertTrue(got.payload().length() < 8192, "a reply of " + got.payload().length() + " characters");
        JsonObject body = r.getAsJsonObject("body");
        assertEquals(RUNS, body.get("total").getAsInt());
        assertEquals(ids.subList(RUNS - 5, RUNS), runIds(body.getAsJsonArray("runs")));
        assertEquals(ids.get(RUNS - 5), body.get("older").getAsString());

        r = reply(control.command(A, "results", "\"limit\":5,\"before\":\"" + body.get("older").getAsString() + "\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertEquals(ids.subList(RUNS - 10, RUNS - 5), runIds(r.getAsJsonObject("body").getAsJsonArray("runs")));
        r = reply(control.command(A, "results", "\"before\":\"" + ids.get(0) + "\""));
        assertEquals(0, r.getAsJsonObject("body").getAsJsonArray("runs").size(), r.toString());
        r = reply(control.command(A, "results", "\"before\":\"../x\""));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().startsWith("before"), r.toString());

        r = reply(control.command(A, "plan", "\"plan\":" + MqttPlanIT.plan("bounded", "1s", "a")));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        String run = r.getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                60_000);
        assertNotNull(result, "no result; stderr: " + rtbox.err);
        assertGapless(run, result.json().get("sequence").getAsLong());
        long size = Files.size(journal);
        assertTrue(size <= BOUND, "the journal has " + size + " bytes after the plan, over its bound of " + BOUND);

        r = reply(control.command(A, "results", "\"limit\":100"));
        body = r.getAsJsonObject("body");
        int total = body.get("total").getAsInt();
        assertTrue(total > 1 && total < RUNS, "runs left: " + total);
        List<String> left = runIds(body.getAsJsonArray("runs"));
        assertEquals(run, left.get(left.size() - 1), "the plan that ended is the newest");
        assertEquals(ids.subList(RUNS - (left.size() - 1), RUNS), left.subList(0, left.size() - 1),
                "the newest runs are kept, in a row");
        r = reply(control.command(A, "results", "\"run\":\"last\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertEquals(run, r.getAsJsonObject("body").get("run").getAsString());
        r = reply(control.command(A, "results", "\"run\":\"" + ids.get(0) + "\""));
        assertEquals(404, r.get("code").getAsInt(), r.toString());
        assertTrue(String.join("\n", rtbox.err).contains("journalMaxBytes"), "no log line says what was dropped");
    }

    private static List<String> runIds(JsonArray runs) {
        List<String> out = new ArrayList<>();
        runs.forEach(e -> out.add(e.getAsJsonObject().get("run").getAsString()));
        return out;
    }

    /** {@code runs} runs of one cell-less plan each, their plan text padded to {@code pad} bytes, in the journal's format. */
    static List<String> writeJournal(Path journal, int runs, int pad) throws Exception {
        Files.createDirectories(journal.getParent());
        List<String> ids = new ArrayList<>();
        String padding = "x".repeat(pad);
        long t = System.currentTimeMillis() - runs * 60_000L;
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(journal))) {
            for (int i = 0; i < runs; i++) {
                String id = String.format(Locale.ROOT, "20261201-%06d-%04x", i, i);
                ids.add(id);
                long started = t + i * 60_000L;
                write(out, "{\"type\":\"plan\",\"schema\":1,\"id\":\"" + id + "\",\"plan\":\"old\",\"description\":null,"
                        + "\"file\":\"old.json\",\"planText\":\"" + padding + "\",\"started\":" + started
                        + ",\"cellsPlanned\":1,\"cellNames\":[\"a\"]}");
                write(out, "{\"type\":\"end\",\"id\":\"" + id + "\",\"ended\":" + (started + 1000)
                        + ",\"state\":\"stopped\",\"verdict\":{\"outcome\":\"INCONCLUSIVE\",\"checks\":[],"
                        + "\"reason\":\"stopped before its cell\"}}");
            }
        }
        return ids;
    }

    private static void write(OutputStream out, String record) throws java.io.IOException {
        byte[] body = record.getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(body);
        out.write(String.format(Locale.ROOT, "%08x %d ", crc.getValue(), body.length).getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.write('\n');
    }
}
