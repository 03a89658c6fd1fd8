package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.control.internal.Postgres;

/**
 * The real control runtime (control.jar through the launcher) on a real PostgreSQL, as a
 * site runs it: Debian's PostgreSQL started in a temporary folder, the jdbcUrl in
 * etc/rtbox.control.cfg, a mosquitto and a real appliance ({@code rtbox serve}). A plan
 * started through the API runs on the appliance; its messages land in PostgreSQL (counted
 * there with psql), the run API answers with its cells, the acceptance record holds every
 * bundle's symbolic name, version and SHA-256, and {@code rtbox control verify} reads the
 * chain from PostgreSQL and then names the record changed in it.
 */
class ControlPostgresIT {
    @TempDir
    Path brokerDir;
    @TempDir
    Path controlHome;
    @TempDir
    Path applianceHome;
    private Postgres pg;
    private Mosquitto broker;
    private ControlServer control;
    private Rtbox appliance;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {appliance, control, broker, pg}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aRealRunIsIngestedIntoPostgresAndTheRunApiAnswers() throws Exception {
        Postgres.requireOrSkip();
        pg = Postgres.start();
        String jdbcUrl = pg.newDatabase("rtbox");
        broker = new Mosquitto(brokerDir, "a1");
        control = new ControlServer(controlHome, broker, "jdbcUrl=" + jdbcUrl);
        // A threshold of 1 us: FAIL everywhere, so the record is issued whatever the readiness check says (the
        // measuring chain's self-test, which the start runs first, must pass for any record).
        Files.writeString(controlHome.resolve("plans/short.json"), ControlIT.PLAN.replace("\"max_us\":100000",
                "\"max_us\":1"));
        appliance = new Rtbox(applianceHome);
        MqttIT.configure(appliance, broker, "a1");
        appliance.start("serve");
        ControlServer.Client admin = control.client();
        assertEquals(200, admin.login("admin", control.adminPassword()).status());
        Await.until(60_000, () -> "a1 not online: " + admin.get("/fleet").body() + appliance.err,
                () -> admin.get("/fleet?state=online").body().contains("\"id\":\"a1\""));
        // The bundles reply (asked when a1 came online) with every bundle's SHA-256, before the start.
        Await.until(30_000, () -> "no bundles for a1: " + admin.get("/appliances/a1").body(),
                () -> admin.get("/appliances/a1").body().contains("rtbox.probe.timer"));
        ControlServer.Client.Response started = admin.post("/starts",
                "{\"plan\":\"short\",\"targets\":[{\"appliance\":\"a1\",\"serial\":\"SN-PG-1\",\"model\":\"X20\"}]}");
        assertEquals(200, started.status(), started.body());
        JsonObject s = started.json().getAsJsonArray("starts").get(0).getAsJsonObject();
        assertEquals(200, s.get("code").getAsInt(), started.body());
        String run = s.get("run").getAsString();
        JsonObject detail = null;
        long end = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < end) {
            detail = admin.get("/runs/a1/" + run).json();
            if (!detail.get("verdict").isJsonNull() && detail.getAsJsonObject("messages").get("complete").getAsBoolean()) {
                break;
            }
            Thread.sleep(500);
        }
        assertFalse(detail.get("verdict").isJsonNull(), "no result stored: " + detail);
        assertEquals(5, detail.getAsJsonObject("messages").get("received").getAsInt(), detail.toString());
        JsonArray cells = detail.getAsJsonArray("cells");
        assertEquals(2, cells.size(), detail.toString());
        assertTrue(cells.get(0).getAsJsonObject().get("samples").getAsLong() > 0, detail.toString());
        assertTrue(cells.get(1).getAsJsonObject().getAsJsonArray("threads").size() > 0, detail.toString());
        assertEquals("SN-PG-1", detail.get("serial").getAsString());
        // In PostgreSQL itself: the five messages, byte for byte as they came (the cell is the codec's JSON).
        assertEquals("5", pg.sql("rtbox", "SELECT count(*) FROM message WHERE appliance = 'a1' AND run_id = '" + run + "'"));
        assertTrue(pg.sql("rtbox", "SELECT convert_from(payload, 'UTF8') FROM message WHERE run_id = '" + run
                + "' AND type = 'result'").contains("\"run\":\"" + run + "\""));
        assertEquals(200, admin.get("/runs/a1/" + run + "/result.json").status());

        // The record: every bundle with its symbolic name, version and SHA-256, in JSON and printable.
        assertNotEquals("PASS", detail.get("verdict").getAsString(), detail.toString());
        ControlServer.Client.Response r = admin.post("/records", "{\"appliance\":\"a1\",\"run\":\"" + run + "\"}");
        assertEquals(201, r.status(), r.body());
        JsonObject record = admin.get("/records/" + r.json().get("id").getAsLong()).json();
        assertTrue(record.getAsJsonObject("selftest").get("ok").getAsBoolean(), record.toString());
        JsonArray bundles = record.getAsJsonArray("bundles");
        assertTrue(bundles.size() > 10, record.toString());
        for (JsonElement e : bundles) {
            JsonObject b = e.getAsJsonObject();
            assertFalse(b.get("symbolicName").isJsonNull() || b.get("version").isJsonNull(), b.toString());
            assertTrue(!b.get("sha256").isJsonNull() && b.get("sha256").getAsString().matches("[0-9a-f]{64}"),
                    "a bundle without its SHA-256 in the record: " + b);
        }
        String html = admin.get("/records/" + r.json().get("id").getAsLong() + ".html").body();
        String timerSha = bundles.asList().stream().map(JsonElement::getAsJsonObject)
                .filter(b -> b.get("symbolicName").getAsString().equals("rtbox.probe.timer")).findFirst().orElseThrow()
                .get("sha256").getAsString();
        assertTrue(html.contains(timerSha), "the printable record lacks rtbox.probe.timer's SHA-256");

        // verify reads the chain from PostgreSQL; one byte changed there, verify names the record.
        Rtbox.Result ok = verify();
        assertEquals(0, ok.exitCode(), ok.stdout() + ok.stderr());
        assertTrue(ok.stdout().contains("jdbc:postgresql"), ok.stdout());
        pg.sql("rtbox", "UPDATE record SET body = replace(body, '\"SN-PG-1\"', '\"SN-PG-7\"')");
        Rtbox.Result changed = verify();
        assertNotEquals(0, changed.exitCode(), changed.stdout() + changed.stderr());
        assertTrue(changed.stdout().contains("record 1: body changed"), changed.stdout());
    }

    private Rtbox.Result verify() throws Exception {
        try (Rtbox r = new Rtbox(controlHome)) {
            return r.run(120, "control", "verify");
        }
    }
}
