package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

/**
 * A set-config of rtbox.mqtt that changes {@code dataDir} lost its trial: the trial file was
 * written in the old data folder, and the appliance the new settings started looked in the
 * new one. So a change that connected was never answered, and one that did not connect was
 * never rolled back (offline for good). The trial now lives in the default data folder, which
 * no setting moves.
 */
class MqttDataDirTrialIT extends MqttFixture {
    static final String A = MqttIT.A;
    @TempDir
    Path otherData;

    private JsonObject reply(String requestId, int ms) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, ms);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    @Test
    void aNewDataDirWithAnUnreachableBrokerIsRolledBackAndOneThatConnectsIsAnswered() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "set-config", "\"pid\":\"rtbox.mqtt\","
                + "\"properties\":{\"configTrialSeconds\":6}"), 60_000);
        assertEquals(200, r.get("code").getAsInt(), r.toString());

        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Path moved = otherData.resolve("mqtt-a");
        String id = control.command(A, "set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"brokers\":"
                + "\"tcp://127.0.0.1:" + closed + "\",\"dataDir\":\"" + moved + "\"}");
        r = reply(id, 90_000);
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        String m = r.get("message").getAsString();
        assertTrue(m.contains("rolled back") && m.contains("dataDir") && m.contains(broker.uri()), m);
        r = reply(control.command(A, "get-config", "\"pid\":\"rtbox.mqtt\""), 15_000);
        JsonObject props = r.getAsJsonObject("body").getAsJsonObject("properties");
        assertEquals(broker.uri(), props.get("brokers").getAsString(), r.toString());
        assertFalse(props.has("dataDir") && !props.get("dataDir").getAsString().isEmpty(), r.toString());

        Path kept = otherData.resolve("mqtt-b");
        r = reply(control.command(A, "set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"dataDir\":\""
                + kept + "\"}"), 60_000);
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("connected with the new settings"), r.toString());
        assertTrue(Files.isDirectory(kept.resolve("outbox")), "the new data folder is not in use");
        assertEquals(200, reply(control.command(A, "status", ""), 15_000).get("code").getAsInt());
        for (Path dir : new Path[] {home.resolve("data/mqtt"), moved, kept}) {
            assertFalse(Files.exists(dir.resolve("config.trial")), "a trial file is left in " + dir);
        }
    }
}
