package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Plans over MQTT against a real mosquitto: a plan sent inline or by name runs and its
 * cells and verdict arrive numbered 2i+1 (cell i starts), 2i+2 (cell i's result), 2n+1
 * (the plan); bad plans, unknown names and a second plan get their codes; an appliance
 * killed mid-plan delivers the journaled cells and reports the plan ABORTED after a
 * restart; {@code results} lists the journal and publishes a run again with the same
 * numbers.
 */
class MqttPlanIT extends MqttFixture {
    static final String A = MqttIT.A;

    static String plan(String name, String duration, String... cells) {
        StringBuilder b = new StringBuilder("{\"rtbox_plan\":1,\"name\":\"" + name + "\",\"probe\":\"timer\","
                + "\"duration\":\"" + duration + "\",\"warmup\":\"0\",\"thresholds\":{\"max_us\":1000000},\"cells\":[");
        for (int i = 0; i < cells.length; i++) {
            b.append(i > 0 ? "," : "").append("{\"name\":\"").append(cells[i]).append("\"}");
        }
        return b.append("]}").toString();
    }

    JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, 20_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    ControlRoom.Received result(String run, long timeoutMs) throws InterruptedException {
        ControlRoom.Received r = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                timeoutMs);
        assertNotNull(r, "no result for " + run + "; stderr: " + rtbox.err);
        return r;
    }

    @Test
    void anInlinePlanDeliversEveryCellAndTheVerdictInOrder() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "plan", "\"plan\":" + plan("two", "1s", "first", "second")));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        JsonObject body = r.getAsJsonObject("body");
        String run = body.get("run").getAsString();
        assertEquals(2, body.get("cells").getAsInt());
        assertEquals(5, body.get("result_sequence").getAsInt());
        JsonObject res = result(run, 60_000).json();
        assertEquals("plan", res.get("kind").getAsString());
        assertEquals("two", res.get("plan").getAsString());
        assertEquals("complete", res.get("state").getAsString());
        assertEquals(5, res.get("sequence").getAsLong());
        assertEquals(2, res.getAsJsonArray("cells").size());
        String verdict = res.get("verdict").getAsString();
        assertTrue(List.of("PASS", "INCONCLUSIVE").contains(verdict), res.toString());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), sequences(run));
        // In order: each cell's start, then its result, then the plan's result; the reply before them all.
        List<ControlRoom.Received> msgs = control.all(m -> m.topic().startsWith("rtbox/v1/up/a1/runs/" + run + "/")
                || m.topic().equals("rtbox/v1/up/a1/reply/" + r.get("requestId").getAsString()));
        assertEquals("reply", msgs.get(0).json().get("type").getAsString());
        assertEquals(List.of("progress", "cell", "progress", "cell", "result"),
                msgs.subList(1, msgs.size()).stream().map(m -> m.json().get("type").getAsString()).toList());
        JsonObject cell2 = msgs.get(4).json();
        assertEquals("second", cell2.get("cell_name").getAsString());
        assertEquals(2, cell2.get("cell").getAsInt());
        assertTrue(cell2.get("samples").getAsLong() > 500, cell2.toString());
        assertTrue(cell2.getAsJsonArray("histogram").size() > 0);
        assertTrue(msgs.get(4).topic().endsWith("/runs/" + run + "/cell"));
        // The inline plan went to the plan service as text: no file of it was ever written (the journal keeps it).
        assertFalse(Files.exists(home.resolve("data/mqtt/plans")), "a temporary plan file");
    }

    @Test
    void badPlansUnknownNamesAndASecondPlanGetTheirCodes() throws Exception {
        Files.createDirectories(home.resolve("plans"));
        Files.writeString(home.resolve("plans/long.json"), plan("long", "30s", "first", "second"));
        serve(false);
        // The plan's own error paths, every problem.
        JsonObject bad = reply(control.command(A, "plan", "\"plan\":{\"rtbox_plan\":1,\"name\":\"b\",\"probe\":\"timer\","
                + "\"duration\":\"1s\",\"cells\":[{\"name\":\"x\",\"policy\":\"fifo:200\"},{\"loads\":[\"nosuchload\"]}]}"));
        assertEquals(400, bad.get("code").getAsInt(), bad.toString());
        String msg = bad.get("message").getAsString();
        assertTrue(msg.contains("$.cells[0].policy"), msg);
        assertTrue(bad.getAsJsonObject("body").getAsJsonArray("problems").size() >= 1, bad.toString());
        JsonObject notObject = reply(control.command(A, "plan", "\"plan\":\"quick\""));
        assertEquals(400, notObject.get("code").getAsInt());
        assertTrue(notObject.get("message").getAsString().contains("plan must be the plan itself"), notObject.toString());
        JsonObject neither = reply(control.command(A, "plan", ""));
        assertEquals(400, neither.get("code").getAsInt());
        assertTrue(neither.get("message").getAsString().contains("not neither"), neither.toString());
        JsonObject unknown = reply(control.command(A, "plan", "\"name\":\"nosuch\""));
        assertEquals(404, unknown.get("code").getAsInt(), unknown.toString());
        assertTrue(unknown.get("message").getAsString().contains("there are long"), unknown.toString());
        JsonObject sneaky = reply(control.command(A, "plan", "\"name\":\"../etc/x\""));
        assertEquals(400, sneaky.get("code").getAsInt(), sneaky.toString());
        // By name; while it runs, a second plan and a run are refused.
        JsonObject ok = reply(control.command(A, "plan", "\"name\":\"long\""));
        assertEquals(200, ok.get("code").getAsInt(), ok.toString());
        String run = ok.getAsJsonObject("body").get("run").getAsString();
        assertNotNull(control.await(m -> m.topic().endsWith("/runs/" + run + "/progress"), 10_000));
        JsonObject second = reply(control.command(A, "plan", "\"plan\":" + plan("two", "1s", "a")));
        assertEquals(409, second.get("code").getAsInt(), second.toString());
        assertTrue(second.get("message").getAsString().contains("plan long (run " + run + ") is under way"),
                second.toString());
        assertEquals(409, reply(control.command(A, "run", MqttIT.RUN)).get("code").getAsInt());
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.payload().contains("\"plan\":\"long\""), 10_000), "the status names the plan under way");
        // Stop: the cut-short cell and the plan's result still come; the second cell's numbers stay unused.
        assertEquals(200, reply(control.command(A, "stop", "")).get("code").getAsInt());
        JsonObject res = result(run, 30_000).json();
        assertEquals("stopped", res.get("state").getAsString(), res.toString());
        assertEquals(5, res.get("sequence").getAsLong());
        assertEquals(List.of(1L, 2L, 5L), sequences(run));
    }

    @Test
    void applianceKilledMidPlanDeliversTheJournaledCellsAndReportsItAborted() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "plan", "\"plan\":" + plan("three", "2s", "c1", "c2", "c3")));
        String run = r.getAsJsonObject("body").get("run").getAsString();
        // Cell 2 started: cell 1 is in the journal.
        assertNotNull(control.await(m -> m.topic().endsWith("/runs/" + run + "/progress")
                && m.json().get("cell").getAsInt() == 2, 30_000), "cell 2 never started; stderr: " + rtbox.err);
        Await.killed(rtbox.pid());
        rtbox.start("serve");
        JsonObject res = result(run, 60_000).json();
        assertEquals("ABORTED", res.get("verdict").getAsString(), res.toString());
        assertEquals("interrupted", res.get("state").getAsString());
        assertEquals(7, res.get("sequence").getAsLong(), "the plan's number is 2n+1 whatever happened");
        int ran = res.get("cells_run").getAsInt();
        assertTrue(ran >= 1 && ran < 3, res.toString());
        // Every journaled cell arrived, each once by (run, sequence).
        List<Long> seqs = sequences(run);
        for (int i = 0; i < ran; i++) {
            assertTrue(seqs.contains(2L * i + 2), "cell " + (i + 1) + " missing: " + seqs);
        }
        assertTrue(res.get("reason").getAsString().contains("restarted during the plan"), res.toString());
        assertTrue(String.join("\n", rtbox.err).contains("was interrupted by a restart after"), rtbox.err.toString());
    }

    @Test
    void resultsListsTheJournalAndPublishesARunAgainWithTheSameNumbers() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "plan", "\"plan\":" + plan("one", "1s", "only")));
        String run = r.getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received first = result(run, 60_000);
        JsonObject list = reply(control.command(A, "results", ""));
        assertEquals(200, list.get("code").getAsInt(), list.toString());
        JsonObject last = list.getAsJsonObject("body").getAsJsonArray("runs").asList().get(0).getAsJsonObject();
        assertEquals(run, last.get("run").getAsString());
        assertEquals("one", last.get("plan").getAsString());
        assertEquals(1, list.getAsJsonObject("body").get("total").getAsInt());
        assertEquals(404, reply(control.command(A, "results", "\"run\":\"20000101-000000-0000\"")).get("code")
                .getAsInt());
        assertEquals(400, reply(control.command(A, "results", "\"limit\":0")).get("code").getAsInt());
        JsonObject again = reply(control.command(A, "results", "\"run\":\"" + run + "\""));
        assertEquals(200, again.get("code").getAsInt(), again.toString());
        assertEquals(2, again.getAsJsonObject("body").get("messages").getAsInt());
        long end = System.currentTimeMillis() + 20_000;
        while (control.all(m -> m.topic().endsWith("/runs/" + run + "/result")).size() < 2
                && System.currentTimeMillis() < end) {
            Thread.sleep(50);
        }
        List<ControlRoom.Received> results = control.all(m -> m.topic().endsWith("/runs/" + run + "/result"));
        assertEquals(2, results.size());
        JsonObject a = first.json(), b = results.get(1).json();
        a.remove("timestamp");
        b.remove("timestamp");
        assertEquals(a, b, "the same result under the same (run, sequence)");
        List<ControlRoom.Received> cells = control.all(m -> m.topic().endsWith("/runs/" + run + "/cell"));
        assertEquals(2, cells.size());
        assertEquals(cells.get(0).json().get("sequence"), cells.get(1).json().get("sequence"));
        assertEquals(LongStream.rangeClosed(1, 3).boxed().toList(), sequences(run));
    }
}
