package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

import rtbox.control.internal.Postgres;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;
import rtbox.runtime.fleet.RecordedPayloads;

/**
 * Two real control-room instances ({@code rtbox control}, sharedGroup=control) on a
 * three-node Artemis cluster and one PostgreSQL, as a factory runs them: appliances
 * (simulated, MQTT 3.1.1 as appliances are) publish results on another node; each result
 * goes to one instance and is stored once, a repeat too; both instances take a share; and
 * status, which is not shared, reaches both. Both instances use the same node, as
 * docs/fleet.md says they must on Artemis (BrokerClusterIT).
 */
class ControlSharedIngestIT {
    @TempDir
    Path clusterDir;
    @TempDir
    Path home1;
    @TempDir
    Path home2;
    private ArtemisCluster cluster;
    private Postgres pg;
    private ControlServer c1;
    private ControlServer c2;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {c1, c2, cluster, pg}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void twoInstancesShareTheResultsAndStoreEachOnce() throws Exception {
        Postgres.requireOrSkip();
        pg = Postgres.start();
        String jdbcUrl = pg.newDatabase("rtbox");
        cluster = new ArtemisCluster(clusterDir, 3).start();
        c1 = new ControlServer(home1, cluster.uri(1), List.of(), "jdbcUrl=" + jdbcUrl, "sharedGroup=control",
                "clientId=rtbox-control-1");
        c2 = new ControlServer(home2, cluster.uri(1), List.of(), "jdbcUrl=" + jdbcUrl, "sharedGroup=control",
                "clientId=rtbox-control-2");
        Thread.sleep(3000); // fixed: the group's bindings reach the other nodes (not visible to a client)

        int appliances = 20, each = 10, repeats = 20;
        MqttClient sim = new MqttClient(cluster.uri(0), "simulated-fleet", new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setMaxInflight(1000);
        sim.connect(o);
        try {
            for (int a = 0; a < appliances; a++) {
                String id = String.format("sim%02d", a);
                sim.publish(Topics.status(id), Codec.encode(Status.offline(id, Instant.now(), Instant.now())), 1,
                        false);
                for (int r = 0; r < each; r++) {
                    publishResult(sim, id, "run-" + r, r < repeats / appliances);
                }
            }
        } finally {
            sim.disconnect();
            sim.close();
        }

        int expected = appliances * each;
        String count = await(pg, "SELECT count(*) FROM message WHERE type = 'result'", Integer.toString(expected),
                90_000);
        // (appliance, run_id, seq) is the table's primary key: a repeat cannot be a second row.
        assertEquals(Integer.toString(expected), count, "every result stored, in one PostgreSQL");

        long[] stored = new long[2];
        long duplicates = 0;
        ControlServer[] both = {c1, c2};
        for (int i = 0; i < 2; i++) {
            ControlServer.Client admin = both[i].client();
            // One database, one set of users: the first instance made the admin.
            assertEquals(200, admin.login("admin", c1.adminPassword()).status());
            JsonObject health = admin.get("/ingest").json();
            stored[i] = health.get("stored").getAsLong();
            duplicates += health.get("duplicates").getAsLong();
            // Status is not shared: each instance sees every appliance.
            String fleet = admin.get("/fleet?limit=100").body();
            for (int a = 0; a < appliances; a++) {
                assertTrue(fleet.contains(String.format("\"id\":\"sim%02d\"", a)), "instance " + (i + 1)
                        + " lacks sim" + a + ": " + fleet);
            }
        }
        System.out.println("shared ingest: results stored by instance 1 " + (stored[0] - appliances) + ", by instance 2 "
                + (stored[1] - appliances)
                + ", duplicates dropped " + duplicates + " (of " + repeats + " repeats)");
        // Each instance takes every status (not shared: stored by both) and its share of the results.
        assertEquals(expected + 2L * appliances, stored[0] + stored[1], "statuses twice, results once");
        assertTrue(stored[0] > appliances && stored[1] > appliances, "both took a share: " + stored[0] + " / " + stored[1]);
        assertEquals(repeats, duplicates, "each repeat dropped once as a duplicate");
    }

    /**
     * Results are not starved by cells (bench/fleet at 1,000 appliances stalled with 422 of
     * 1,000 results unstored and every cell stored). Artemis counts an MQTT 5 session's
     * receive maximum over all its subscriptions, but an acknowledgement wakes only the
     * subscription whose message it was; a subscription refused while the window was full
     * waits until a new message comes to it. Here the database is locked while 150 cells come
     * (the window of 128 fills, nothing is acknowledged), then 20 results come and find the
     * window full, then the lock goes: every cell and every result must be stored. With both
     * subscriptions on one session, the results stayed at the broker (checked: 1 of 21).
     */
    @Test
    void resultsThatFindTheWindowFullOfCellsAreStoredOnceTheCellsAre() throws Exception {
        Postgres.requireOrSkip();
        pg = Postgres.start();
        String jdbcUrl = pg.newDatabase("rtbox");
        cluster = new ArtemisCluster(clusterDir, 3).start();
        c1 = new ControlServer(home1, cluster.uri(1), List.of(), "jdbcUrl=" + jdbcUrl, "sharedGroup=control",
                "clientId=rtbox-control-1");
        RecordedPayloads payloads = new RecordedPayloads();
        int cells = 150, results = 20;
        MqttClient sim = new MqttClient(cluster.uri(1), "simulated-fleet", new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setMaxInflight(1000);
        sim.connect(o);
        try (java.sql.Connection lock = java.sql.DriverManager.getConnection(jdbcUrl)) {
            sim.publish(Topics.status("starve"), Codec.encode(Status.offline("starve", Instant.now(), Instant.now())),
                    1, false);
            publishResult(sim, "starve", "run-0", false);
            assertEquals("1", await(pg, "SELECT count(*) FROM message WHERE type = 'result'", "1", 60_000),
                    "the first result stored (the table and its partition made)");
            lock.setAutoCommit(false);
            try (java.sql.Statement st = lock.createStatement()) {
                st.execute("LOCK TABLE message IN EXCLUSIVE MODE");
            }
            for (int i = 1; i <= cells; i++) {
                sim.publish(Topics.cell("starve", "run-" + i), payloads.cell("starve", "run-" + i, 2, 1, 1), 1, false);
            }
            // The writer waits for the lock with a batch; what follows fills the window (128).
            assertEquals("t", await(pg, "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event_type = 'Lock'", "t",
                    60_000), "the control room's writer waits for the lock");
            Thread.sleep(3000); // fixed: the cells fill the window meanwhile, inside the control room (nothing to see)
            for (int i = 1; i <= results; i++) {
                publishResult(sim, "starve", "run-" + i, false);
            }
            Thread.sleep(2000); // fixed: the results reach their queue while the window is full (a broker's inside)
            lock.commit();
        } finally {
            sim.disconnect();
            sim.close();
        }
        String stored = await(pg, "SELECT count(*) FROM message WHERE type IN ('cell', 'result')",
                Integer.toString(cells + results + 1), 60_000);
        String byType = pg.sql("rtbox", "SELECT type || ' ' || count(*) FROM message WHERE type IN ('cell', 'result')"
                + " GROUP BY type ORDER BY type").replace('\n', ',');
        System.out.println("results behind a full window of cells: stored " + byType + " (of " + cells + " cells, "
                + (results + 1) + " results)");
        assertEquals(Integer.toString(cells + results + 1), stored, "every cell and result stored: " + byType);
    }

    /** {@code query}'s answer once it is {@code want}, or the last one after {@code ms}. */
    private static String await(Postgres pg, String query, String want, long ms) throws Exception {
        String[] got = {""};
        Await.within(ms, () -> (got[0] = pg.sql("rtbox", query)).equals(want));
        return got[0];
    }

    private static void publishResult(MqttClient sim, String appliance, String run, boolean twice) throws Exception {
        byte[] payload = Codec.encode(new Result(appliance, Instant.now(), run, 1, "timer", Outcome.ERROR,
                "simulated appliance", false, null, null, null, null, null));
        sim.publish(Topics.result(appliance, run), payload, 1, false);
        if (twice) {
            // A QoS 1 redelivery after a failover: the same message again.
            sim.publish(Topics.result(appliance, run), payload, 1, false);
        }
    }
}
