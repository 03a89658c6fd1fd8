package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Live figures (issue 32 item 2) from the real runtime through a real mosquitto with the shipped
 * ACL: while a plan's first cell runs, {@code rtbox/v1/up/a1/live} brings per-thread min, act,
 * avg, max and samples and the progress within the cell, the first of them before that cell's
 * result and within the cell's duration of its start; cell 2 starts near 0 %, not at the plan's
 * 50 %; the results stay numbered without a gap. Another appliance's user cannot publish on
 * a1's live topic (the ACL), only on its own.
 */
class LiveFiguresIT extends MqttFixture {
    static final long CELL_MS = 3000;

    @Test
    void liveFiguresArriveWhileTheFirstCellRuns() throws Exception {
        serve(false);
        long sent = System.currentTimeMillis();
        ControlRoom.Received reply = control.reply(MqttIT.A,
                control.command(MqttIT.A, "plan", "\"plan\":" + MqttPlanIT.plan("live", "3s", "first", "second")),
                20_000);
        assertNotNull(reply, "no reply; stderr: " + rtbox.err);
        assertEquals(200, reply.json().get("code").getAsInt(), reply.payload());
        String run = reply.json().getAsJsonObject("body").get("run").getAsString();
        String runs = "rtbox/v1/up/a1/runs/" + run + "/";

        ControlRoom.Received cellStart = control.await(m -> m.topic().equals(runs + "progress")
                && m.json().get("cell").getAsInt() == 1, 20_000);
        assertNotNull(cellStart, "cell 1 did not start; stderr: " + rtbox.err);
        ControlRoom.Received firstLive = control.await(m -> m.topic().equals("rtbox/v1/up/a1/live")
                && measured(m.json(), run, 1), 20_000);
        assertNotNull(firstLive, "no live figure with samples for cell 1; stderr: " + rtbox.err);
        ControlRoom.Received cell1 = control.await(m -> m.topic().equals(runs + "cell")
                && m.json().get("cell").getAsInt() == 1, 30_000);
        assertNotNull(cell1, "cell 1 did not end; stderr: " + rtbox.err);
        long startToLive = firstLive.atMs() - cellStart.atMs();
        System.out.printf("live figures: command to first live figure %d ms, cell start to it %d ms, before the"
                + " cell's result by %d ms%n", firstLive.atMs() - sent, startToLive, cell1.atMs() - firstLive.atMs());
        assertTrue(firstLive.atMs() < cell1.atMs(), "the first live figure came after the cell's result");
        assertTrue(startToLive < CELL_MS, "first live figure " + startToLive + " ms after the cell started");

        JsonObject l = firstLive.json();
        assertEquals("live", l.get("type").getAsString());
        assertEquals("live", l.get("plan").getAsString());
        assertEquals(2, l.get("cells").getAsInt());
        assertEquals("first", l.get("cell_name").getAsString());
        JsonObject t = l.getAsJsonArray("threads").get(0).getAsJsonObject();
        double min = t.get("min_us").getAsDouble(), avg = t.get("avg_us").getAsDouble(), max = t.get("max_us")
                .getAsDouble(), act = t.get("act_us").getAsDouble();
        assertTrue(min > 0 && min <= avg && avg <= max && act >= min && act <= max, t.toString());

        assertNotNull(control.await(m -> m.topic().equals(runs + "result"), 30_000), "no plan result; stderr: "
                + rtbox.err);
        // Within cell 1 the figures go on: more than one, samples growing, progress within the cell.
        List<JsonObject> cell1Live = control.all(m -> m.topic().equals("rtbox/v1/up/a1/live")
                && measured(m.json(), run, 1)).stream().map(ControlRoom.Received::json).toList();
        assertTrue(cell1Live.size() >= 2, "live figures in cell 1: " + cell1Live.size());
        long firstSamples = samples(cell1Live.get(0)), lastSamples = samples(cell1Live.get(cell1Live.size() - 1));
        assertTrue(lastSamples > firstSamples, firstSamples + " then " + lastSamples);
        assertTrue(cell1Live.stream().anyMatch(j -> j.get("percent").getAsLong() > 0
                && j.get("percent").getAsLong() < 100), "no progress within cell 1");
        // Cell 2 starts at its own 0 %, not at the plan's 50 %.
        JsonObject cell2First = control.all(m -> m.topic().equals("rtbox/v1/up/a1/live")
                && m.json().get("run").getAsString().equals(run) && m.json().get("cell").getAsInt() == 2).stream()
                .map(ControlRoom.Received::json).findFirst().orElse(null);
        assertNotNull(cell2First, "no live figure in cell 2");
        assertTrue(cell2First.get("percent").getAsLong() < 50, cell2First.toString());
        // The results are still QoS 1 and complete.
        assertGapless(run, 5);

        // The ACL: b1's user may publish live figures under its own id only.
        MqttClient b1 = new MqttClient(broker.uri(), "rtbox-b1", new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setUserName("b1");
        o.setPassword(Mosquitto.PASSWORD.toCharArray());
        b1.connect(o);
        try {
            b1.publish("rtbox/v1/up/a1/live", "forged".getBytes(StandardCharsets.UTF_8), 1, false);
            b1.publish("rtbox/v1/up/b1/live", "own".getBytes(StandardCharsets.UTF_8), 1, false);
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/b1/live"), 10_000), "b1's own live topic");
            // Sent before the own one on the same connection: had the broker let it through, it would be here by now.
            assertNull(control.await(m -> m.payload().equals("forged"), 1), "b1 published on a1's live topic");
        } finally {
            b1.disconnect();
            b1.close();
        }
    }

    private static boolean measured(JsonObject j, String run, int cell) {
        return j.has("run") && j.get("run").getAsString().equals(run) && j.has("cell") && j.get("cell").getAsInt() == cell
                && j.getAsJsonArray("threads").size() > 0 && samples(j) > 0;
    }

    private static long samples(JsonObject j) {
        return j.getAsJsonArray("threads").get(0).getAsJsonObject().get("samples").getAsLong();
    }
}
