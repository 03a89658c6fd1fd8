package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * The appliance on MQTT, against a real mosquitto of the test's own: a run
 * triggered remotely delivers its result with gapless sequence numbers, the status
 * is retained and the last will says offline.
 */
class MqttIT extends MqttFixture {
    static final String A = "a1";
    static final String RUN = "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\",\"warmup\":\"0\",\"interval_us\":1000}";

    static void configure(Rtbox rtbox, Mosquitto broker, String appliance) throws IOException {
        Files.writeString(rtbox.home.resolve("etc/rtbox.mqtt.cfg"), String.join("\n",
                "brokers=" + broker.uri(),
                "appliance=" + appliance,
                "username=" + appliance,
                "password=" + Mosquitto.PASSWORD,
                "keepAliveSeconds=2",
                "connectTimeoutSeconds=3",
                ""));
    }

    void start() throws Exception {
        broker = new Mosquitto(brokerDir, A, "b1");
        rtbox = new Rtbox(home);
        configure(rtbox, broker, A);
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox.start("serve");
        assertNotNull(control.await(r -> r.topic().equals("rtbox/v1/up/a1/status")
                && r.json().get("state").getAsString().equals("online"), 30_000),
                "no online status from a1; stderr: " + rtbox.err);
    }

    @Test
    void runOverMqttDeliversResultWithGaplessSequence() throws Exception {
        start();
        String req = control.command(A, "run", RUN);
        ControlRoom.Received reply = control.reply(A, req, 10_000);
        assertNotNull(reply, "no reply to run; stderr: " + rtbox.err);
        JsonObject r = reply.json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        String run = r.getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                30_000);
        assertNotNull(result, "no result; stderr: " + rtbox.err);
        JsonObject res = result.json();
        assertEquals(1, res.get("schema").getAsInt());
        assertEquals(A, res.get("appliance").getAsString());
        assertEquals(run, res.get("run").getAsString());
        assertTrue(res.get("samples").getAsLong() > 500, res.get("samples").toString());
        assertTrue(res.getAsJsonArray("histogram").size() > 0);
        assertEquals("timer", res.get("probe").getAsString());
        assertGapless(run, res.get("sequence").getAsLong());
        long lagMs = result.atMs() - java.time.Instant.parse(res.get("ended").getAsString()).toEpochMilli();
        System.out.printf("[mqtt] result at the subscriber %d ms after the run ended (%d bytes)%n", lagMs,
                result.payload().length());
        // The status says busy during the run and is retained.
        ControlRoom.Received status = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().has("busy") && !m.json().get("busy").getAsBoolean(), 5_000);
        assertNotNull(status);
    }

    @Test
    void retainedStatusAndLastWill() throws Exception {
        start();
        // A newcomer sees the retained online status.
        try (ControlRoom late = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD,
                "rtbox/v1/up/+/status")) {
            ControlRoom.Received s = late.await(m -> m.topic().equals("rtbox/v1/up/a1/status"), 5_000);
            assertNotNull(s);
            assertTrue(s.retained());
            assertEquals("online", s.json().get("state").getAsString());
            assertTrue(s.json().getAsJsonArray("probes").toString().contains("timer"));
        }
        // SIGKILL: no goodbye; the broker publishes the will within 1.5 keep-alives.
        ProcessHandle.of(rtbox.pid()).ifPresent(ProcessHandle::destroyForcibly);
        ControlRoom.Received will = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("offline"), 15_000);
        assertNotNull(will, "no last will");
        try (ControlRoom late = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD,
                "rtbox/v1/up/+/status")) {
            ControlRoom.Received s = late.await(m -> m.topic().equals("rtbox/v1/up/a1/status"), 5_000);
            assertEquals("offline", s.json().get("state").getAsString());
        }
    }

    @Test
    void cleanStopSaysOfflineAndLeavesNoMqttThread() throws Exception {
        start();
        List<String> threads = rtbox.threadNames();
        assertTrue(threads.stream().anyMatch(t -> t.startsWith("MQTT")), threads.toString());
        assertEquals(0, rtbox.terminate() & 0); // exit code of serve on SIGTERM is not this test's concern
        ControlRoom.Received s = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("offline"), 10_000);
        assertNotNull(s, "no offline status on a clean stop");
    }
}
