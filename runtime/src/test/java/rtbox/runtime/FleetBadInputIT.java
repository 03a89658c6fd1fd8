package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.control.internal.Postgres;
import rtbox.runtime.fleet.SimulatedAppliance;
import rtbox.runtime.fleet.SimulatedFleet;

/**
 * Issue 12, bad input at scale: 50 simulated appliances run plans through the shipped site
 * broker configuration (docs/mosquitto.conf and its ACL) into the real control room on
 * PostgreSQL, beside three bad ones: one floods (its plans at ten times the pace), one sends
 * garbage on its own tree, one publishes a result as another appliance and connects with
 * that appliance's client id. The flood is limited (its status and progress refused past its
 * budget) and named; the garbage is refused and counted by reason, naming its topic; the
 * spoofed result is refused by the broker (named in its log) and never stored; and every
 * result of the 50 arrives, once, as does every result of the flooder. Issue 31: the junk
 * appliance's figures out of range (a negative latency or count, 1e999, a run '..') are refused,
 * counted per appliance, and its good messages stored; an appliance with a broker account that the
 * control room's appliancesFile does not name lands as unregistered (stored and shown, its runs not
 * in the fleet's counts, runs list or records) until an admin accepts it, with CSRF, audited.
 */
class FleetBadInputIT {
    private static final int APPLIANCES = 50;
    @TempDir
    Path brokerDir;
    @TempDir
    Path home;
    private Mosquitto broker;
    private Postgres pg;
    private ControlServer room;
    private SimulatedFleet fleet;
    private MqttClient thief;

    @AfterEach
    void stop() throws Exception {
        if (thief != null) {
            thief.disconnectForcibly(100, 100);
            thief.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {fleet, room, broker, pg}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aFloodGarbageAndASpoofAreLimitedOrRefusedAndNamedAndTheOthersArrive() throws Exception {
        Postgres.requireOrSkip();
        long t0 = System.currentTimeMillis();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < APPLIANCES; i++) {
            ids.add(String.format("line%02d", i));
        }
        String flood = "flood1", junk = "junk1", spoof = "spoof1", intruder = "intruder1";
        ids.addAll(List.of(flood, junk, spoof));
        // The control room knows the fleet (appliancesFile); the intruder has a broker account only.
        java.nio.file.Files.createDirectories(home);
        Path known = home.resolve("appliances");
        java.nio.file.Files.write(known, ids);
        ids.add(intruder);
        broker = Mosquitto.site(brokerDir, ids.toArray(String[]::new));
        pg = Postgres.start();
        String jdbcUrl = pg.newDatabase("rtbox");
        // A budget of 2 messages/s (bursts of 40): an appliance here sends about 1.
        room = new ControlServer(home, broker.controlUri(), List.of(), "jdbcUrl=" + jdbcUrl,
                "floodMessagesPerSecond=2", "appliancesFile=" + known);
        fleet = new SimulatedFleet(ids, i -> Mosquitto.PASSWORD, i -> new String[] {broker.uri()}, 10).start(2000);
        assertTrue(fleet.awaitConnected(30_000), "the fleet did not connect");
        SimulatedAppliance flooder = fleet.get(APPLIANCES), garbage = fleet.get(APPLIANCES + 1),
                spoofer = fleet.get(APPLIANCES + 2);

        // The 50 (and the junk and spoof appliances) run plans of 2 cells, one every 2 s; the flooder ten times as fast.
        // The flooder's plans are only its own: when the fleet's slow plans could also start on it, they took
        // most of its idle moments in a CI run (63 messages, 2.6x one of the others', where 8x was usual).
        fleet.leaveOutOfPlans(flooder);
        fleet.runPlans(2, 2000);
        Thread flooding = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                flooder.startPlan(2, 200);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        flooding.setDaemon(true);
        flooding.start();

        // Garbage on the junk appliance's own tree, each kind a few times.
        for (int i = 0; i < 3; i++) {
            garbage.sendRaw("rtbox/v1/up/junk1/runs/g" + i + "/result", "not json at all".getBytes(StandardCharsets.UTF_8));
            garbage.sendRaw("rtbox/v1/up/junk1/runs/g" + i + "/result", ("{\"schema\":9,\"type\":\"result\",\"appliance\":"
                    + "\"junk1\",\"run\":\"g" + i + "\",\"sequence\":1}").getBytes(StandardCharsets.UTF_8));
            garbage.sendRaw("rtbox/v1/up/junk1/runs/g" + i + "/result", resultOf("line01", "g" + i));
            garbage.sendRaw("rtbox/v1/up/junk1/whatever" + i, "{}".getBytes(StandardCharsets.UTF_8));
            // Figures out of range (issue 31: each of these was stored).
            for (String figure : new String[] {"\"max_us\":-5", "\"max_us\":1e999", "\"samples\":-1",
                "\"missed_deadlines\":-2"}) {
                garbage.sendRaw("rtbox/v1/up/junk1/runs/o" + i + "/result", withFigure(resultOf("junk1", "o" + i), figure));
            }
            garbage.sendRaw("rtbox/v1/up/junk1/runs/../result", resultOf("junk1", ".."));
        }
        // A result as line00, and line00's client id taken (the listener makes it spoof1's own).
        spoofer.sendRaw("rtbox/v1/up/line00/runs/spoofed/result", resultOf("line00", "spoofed"));
        thief = new MqttClient(broker.uri(), "rtbox-line00", new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setUserName(spoof);
        o.setPassword(Mosquitto.PASSWORD.toCharArray());
        thief.connect(o);
        try {
            thief.publish("rtbox/v1/up/line00/runs/spoofed2/result", resultOf("line00", "spoofed2"), 1, false);
        } catch (org.eclipse.paho.client.mqttv3.MqttException e) {
            // The broker made the thief spoof1 (its user name): the simulated spoof1 may take that session back first.
        }

        // Fixed on purpose: 30 s of flooding beside the fleet's traffic is the scenario.
        Thread.sleep(30_000);
        flooding.interrupt();
        fleet.stopPlans();
        assertTrue(fleet.awaitDrained(60_000), "outboxes not drained: " + fleet.outboxTotal());
        assertTrue(fleet.get(0).connected(), "line00 was cut off by the client id thief");

        Set<SimulatedAppliance.Key> sent = fleet.acknowledged();
        Set<SimulatedAppliance.Key> stored = new HashSet<>();
        long end = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < end) {
            stored = stored();
            if (stored.containsAll(sent)) {
                break;
            }
            Thread.sleep(1000);
        }
        Set<SimulatedAppliance.Key> lost = new HashSet<>(sent);
        lost.removeAll(stored);
        long fromFlooder = sent.stream().filter(k -> k.appliance().equals(flood)).count();
        long fromOthers = sent.stream().filter(k -> k.appliance().startsWith("line")).count();

        ControlServer.Client admin = room.client();
        assertEquals(200, admin.login("admin", room.adminPassword()).status());
        JsonObject health = admin.get("/ingest").json();
        JsonObject rejected = health.getAsJsonObject("rejected");
        System.out.printf("FleetBadInputIT: %d appliances' cells and results sent %d, the flooder's %d (%.1fx one of"
                + " theirs), lost %d; rejected %s; flooding %s; in %.0f s%n", APPLIANCES, fromOthers, fromFlooder,
                fromFlooder * (double) APPLIANCES / fromOthers, lost.size(), rejected,
                health.get("flooding"), (System.currentTimeMillis() - t0) / 1000.0);
        assertEquals(Set.of(), lost, "every cell and result of the 50 and of the flooder stored");
        assertTrue(fromOthers >= APPLIANCES * 5L, "the 50 ran plans: " + fromOthers);
        assertTrue(fromFlooder > 5 * fromOthers / APPLIANCES, "the flooder sent far more: " + fromFlooder);

        // The flood: limited and named.
        assertTrue(rejected.get("rate-limited").getAsLong() > 0, "the flooder's status and progress limited");
        Set<String> flooding2 = new HashSet<>();
        for (JsonElement e : health.getAsJsonArray("flooding")) {
            flooding2.add(e.getAsJsonObject().get("appliance").getAsString());
        }
        assertEquals(Set.of(flood), flooding2, "only the flooder named as flooding");
        // The garbage: refused, counted by reason, its topic named.
        for (String reason : new String[] {"not-json", "unknown-schema", "appliance-mismatch", "bad-topic"}) {
            assertTrue(rejected.get(reason).getAsLong() >= 3, reason + ": " + rejected);
        }
        String last = health.getAsJsonArray("last_rejected").toString();
        assertTrue(last.contains("rtbox/v1/up/junk1/"), "the garbage's topic named: " + last);
        // Out of range: refused, counted (also per appliance, with the last reason), none of it stored.
        assertTrue(rejected.get("out-of-range").getAsLong() >= 12, rejected.toString());
        JsonObject junkRefused = null;
        for (JsonElement e : health.getAsJsonArray("refused_by_appliance")) {
            if (e.getAsJsonObject().get("appliance").getAsString().equals(junk)) {
                junkRefused = e.getAsJsonObject();
            }
        }
        assertTrue(junkRefused != null && junkRefused.get("refused").getAsLong() >= 3 * 9, String.valueOf(junkRefused));
        assertEquals(junkRefused.toString(), admin.get("/appliances/" + junk).json().get("refused").toString());
        assertEquals("0", pg.sql("rtbox", "SELECT count(*) FROM message WHERE run_id LIKE 'o%' OR run_id = '..'"));
        assertTrue(sent.stream().anyMatch(k -> k.appliance().equals(junk)), "the junk appliance's own plans were"
                + " stored all the same (every acknowledged message is, above)");
        // The intruder: stored, shown as unregistered, and none of its runs the fleet's.
        JsonObject fleetNow = admin.get("/fleet?limit=1000").json();
        assertEquals(1, fleetNow.getAsJsonObject("counts").get("unregistered").getAsLong(), fleetNow.get("counts").toString());
        JsonObject unregistered = admin.get("/fleet?state=unregistered").json();
        assertEquals(1, unregistered.get("total").getAsLong(), unregistered.toString());
        JsonObject row = unregistered.getAsJsonArray("appliances").get(0).getAsJsonObject();
        assertEquals(intruder, row.get("id").getAsString());
        assertFalse(row.get("registered").getAsBoolean());
        assertTrue(row.get("last_verdict").isJsonNull(), row.toString());
        JsonObject runsBefore = admin.get("/runs?limit=1000").json();
        assertFalse(runsBefore.toString().contains(intruder), "the intruder's runs are not the fleet's");
        JsonObject itsRuns = admin.get("/runs?appliance=" + intruder).json();
        assertTrue(itsRuns.get("total").getAsLong() > 0, "its runs are stored: " + itsRuns);
        String itsRun = itsRuns.getAsJsonArray("runs").get(0).getAsJsonObject().get("run").getAsString();
        ControlServer.Client.Response record = admin.post("/records", "{\"appliance\":\"" + intruder + "\",\"run\":\""
                + itsRun + "\"}");
        assertEquals(409, record.status(), record.body());
        assertTrue(record.body().contains("not registered"), record.body());
        // Accepted by an admin: a state change like any other, refused without its CSRF token; then audited.
        assertEquals(403, admin.send("POST", "/appliances/" + intruder + "/accept", null, null).status());
        assertFalse(admin.get("/appliances/" + intruder).json().get("registered").getAsBoolean());
        ControlServer.Client.Response accepted = admin.post("/appliances/" + intruder + "/accept", null);
        assertEquals(200, accepted.status(), accepted.body());
        assertTrue(accepted.json().get("registered").getAsBoolean(), accepted.body());
        assertEquals("admin", accepted.json().get("registered_by").getAsString());
        assertEquals(0, admin.get("/fleet?state=unregistered").json().get("total").getAsLong());
        assertEquals(runsBefore.get("total").getAsLong() + itsRuns.get("total").getAsLong(),
                admin.get("/runs?limit=1").json().get("total").getAsLong(), "accepted: its runs count");
        assertTrue(admin.get("/audit?action=appliance-accept").body().contains("\"target\":\"" + intruder + "\""));
        // The spoof: refused by the broker, named in its log, never stored.
        assertEquals("0", pg.sql("rtbox", "SELECT count(*) FROM message WHERE run_id LIKE 'spoofed%'"));
        String log = broker.log();
        assertTrue(log.contains("Denied PUBLISH from spoof1"), "the broker names the spoofer");
        // No row stored that no appliance sent.
        Set<SimulatedAppliance.Key> extra = new HashSet<>(stored);
        extra.removeAll(sent);
        assertEquals(Set.of(), extra);
    }

    private static byte[] withFigure(byte[] result, String figure) {
        String s = new String(result, StandardCharsets.UTF_8);
        return s.replace("\"complete\":true", "\"complete\":true," + figure).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] resultOf(String appliance, String run) {
        return ("{\"schema\":1,\"type\":\"result\",\"timestamp\":\"2026-12-03T12:00:00Z\",\"appliance\":\"" + appliance
                + "\",\"run\":\"" + run + "\",\"sequence\":1,\"probe\":\"timer\",\"verdict\":\"PASS\",\"reason\":\"x\","
                + "\"complete\":true}").getBytes(StandardCharsets.UTF_8);
    }

    private Set<SimulatedAppliance.Key> stored() throws Exception {
        return SimulatedAppliance.Key.parse(pg.sql("rtbox", SimulatedAppliance.Key.STORED_SQL));
    }
}
