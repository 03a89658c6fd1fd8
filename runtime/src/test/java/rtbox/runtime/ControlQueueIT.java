package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Issue 32's queue per appliance, with every part real (mosquitto with the ACL, an appliance
 * with {@code rtbox serve}, {@code rtbox control}): three starts for one appliance, the
 * second and third queued (202, their place in line), the control room killed with -9 while
 * the first runs and started again; all three run, one after another (each begins after the
 * one before ended), none lost, none twice. A fourth, queued, is cancelled by its owner only
 * (another operator gets 403, a request without the CSRF token 403), audited.
 */
class ControlQueueIT {
    /** A few seconds, no thresholds (MEASURED): what is tested is the order, not the figures. */
    private static final String PLAN = "{\"rtbox_plan\":1,\"name\":\"queued\",\"probe\":\"timer\",\"parameters\":"
            + "{\"interval_us\":1000,\"cpus\":[0]},\"warmup\":\"0\",\"duration\":\"3s\",\"cells\":[{\"name\":\"idle\"}]}";

    @TempDir
    Path brokerDir;
    @TempDir
    Path applianceHome;
    @TempDir
    Path controlHome;

    private Mosquitto broker;
    private Rtbox appliance;
    private ControlServer control;

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {control, appliance, broker}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void threeStartsRunOneAfterAnotherAcrossAKillOfTheControlRoom() throws Exception {
        broker = new Mosquitto(brokerDir, "a1");
        control = new ControlServer(controlHome, broker);
        appliance = new Rtbox(applianceHome);
        MqttIT.configure(appliance, broker, "a1");
        appliance.start("serve");
        ControlServer.Client admin = control.client();
        assertEquals(200, admin.login("admin", control.adminPassword()).status());
        Await.until(60_000, () -> "a1 online: " + admin.get("/fleet").body(),
                () -> admin.get("/fleet").body().contains("\"state\":\"online\""));
        String start = "{\"plan\":" + PLAN + ",\"targets\":[{\"appliance\":\"a1\",\"serial\":\"SN-Q\"}]}";

        JsonObject first = admin.post("/starts", start).json().getAsJsonArray("starts").get(0).getAsJsonObject();
        assertEquals(200, first.get("code").getAsInt(), first.toString());
        List<Long> queued = new ArrayList<>();
        for (int i = 2; i <= 3; i++) {
            JsonObject s = admin.post("/starts", start).json().getAsJsonArray("starts").get(0).getAsJsonObject();
            assertEquals(202, s.get("code").getAsInt(), "start " + i + " while a1 is busy: " + s);
            assertEquals(i - 1, s.get("position").getAsInt(), s.toString());
            assertTrue(s.get("message").getAsString().startsWith("queued"), s.toString());
            queued.add(s.get("queued").getAsLong());
        }
        assertTrue(admin.get("/fleet").body().contains("\"queued\":2"), admin.get("/fleet").body());

        // kill -9 while the first runs; the queue is in the database
        control.close();
        control = new ControlServer(controlHome, broker);
        ControlServer.Client again = control.client();
        assertEquals(200, again.login("admin", control.adminPassword()).status());
        Await.until(120_000, () -> "three runs of a1 ended: " + again.get("/runs?appliance=a1").body()
                + "\nqueue: " + again.get("/queue").body(), () -> {
                    JsonObject runs = again.get("/runs?appliance=a1").json();
                    int ended = 0;
                    for (JsonElement r : runs.getAsJsonArray("runs")) {
                        ended += r.getAsJsonObject().get("verdict").isJsonNull() ? 0 : 1;
                    }
                    return ended >= 3;
                });
        List<JsonObject> runs = new ArrayList<>();
        for (JsonElement r : again.get("/runs?appliance=a1").json().getAsJsonArray("runs")) {
            runs.add(0, r.getAsJsonObject()); // oldest first
        }
        assertEquals(3, runs.size(), "exactly three runs, none twice: " + runs);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < runs.size(); i++) {
            JsonObject r = runs.get(i);
            ids.add(r.get("run").getAsString());
            assertEquals("SN-Q", r.get("serial").getAsString(), r.toString());
            assertEquals("complete", r.get("state").getAsString(), r.toString());
            if (i > 0) {
                Instant before = Instant.parse(runs.get(i - 1).get("ended").getAsString());
                Instant started = Instant.parse(r.get("started").getAsString());
                assertTrue(!started.isBefore(before), "run " + (i + 1) + " started at " + started + ", before run " + i
                        + " ended at " + before);
            }
        }
        assertEquals(3, ids.size());
        for (long id : queued) {
            JsonObject q = again.get("/queue/" + id).json();
            assertEquals("started", q.get("state").getAsString(), q.toString());
            assertTrue(ids.contains(q.get("run").getAsString()), q.toString());
        }
        assertEquals(0, again.get("/queue").json().getAsJsonArray("queue").size());

        // A fourth behind a long run: cancelled by its owner only, with the CSRF token.
        String longer = start.replace("\"3s\"", "\"30s\"");
        assertEquals(200, again.post("/starts", longer).json().getAsJsonArray("starts").get(0).getAsJsonObject()
                .get("code").getAsInt());
        JsonObject fourth = again.post("/starts", start).json().getAsJsonArray("starts").get(0).getAsJsonObject();
        assertEquals(202, fourth.get("code").getAsInt(), fourth.toString());
        long id = fourth.get("queued").getAsLong();
        assertEquals(201, again.post("/users", "{\"name\":\"otto\",\"role\":\"operator\",\"password\":"
                + "\"correct-horse-battery\"}").status());
        ControlServer.Client otto = control.client();
        assertEquals(200, otto.login("otto", "correct-horse-battery").status());
        ControlServer.Client.Response notHis = otto.send("DELETE", "/queue/" + id, null, otto.csrf);
        assertEquals(403, notHis.status(), notHis.body());
        assertEquals(403, again.send("DELETE", "/queue/" + id, null, null).status(), "no CSRF token");
        ControlServer.Client.Response cancelled = again.send("DELETE", "/queue/" + id, null, again.csrf);
        assertEquals(200, cancelled.status(), cancelled.body());
        assertEquals("cancelled", cancelled.json().get("state").getAsString());
        assertEquals(409, again.send("DELETE", "/queue/" + id, null, again.csrf).status(), "cancelled twice");
        String audit = again.get("/audit?action=start-cancel").body();
        assertTrue(audit.contains("\"target\":\"a1\"") && audit.contains("\"queued\":" + id), audit);
        assertNotNull(again.get("/audit?action=start-queued").json().getAsJsonArray("entries").get(2));
    }
}
