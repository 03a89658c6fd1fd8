package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 case 6 and issue 31 case 4, against a mosquitto started from the shipped site
 * configuration (docs/mosquitto.conf, docs/mosquitto.acl): a second appliance's user connecting
 * with appliance rel1's client id kicked rel1 off again and again (issue 17, the appliance
 * listener), and so did any control-room user on the control listener (issue 31: 10 of 10
 * kicks, 10 false offline statuses, 2 of 10 commands lost). Now no user of either listener
 * can take rel1's session.
 */
class MqttIdentityIT {
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    Mosquitto broker;
    Rtbox rtbox;
    ControlRoom control;
    final List<MqttClient> thieves = new ArrayList<>();

    @Test
    void noUserOfEitherListenerCanTakeOverAnAppliancesSession() throws Exception {
        long t0 = System.nanoTime();
        broker = Mosquitto.site(brokerDir, "rel1", "rel2");
        control = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, "rel1");
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/rel1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "rel1 not online: " + rtbox.err);

        // From each listener, as its user: rel1's effective client id ("rel1"), and the one it sends ("rtbox-rel1").
        String[][] attempts = {{broker.uri(), "rel2"}, {broker.controlUri(), Mosquitto.CONTROL}};
        List<String> requests = new ArrayList<>();
        int refused = 0, admitted = 0;
        for (int i = 0; i < 20; i++) {
            String[] from = attempts[i / 10];
            String id = i % 2 == 0 ? "rtbox-rel1" : "rel1";
            try {
                thieves.add(connect(from[0], id, from[1]));
                admitted++;
            } catch (MqttException e) {
                // The prefix rule (clientid_prefixes rtbox-) refuses "rel1" outright: not authorised.
                assertEquals("rel1", id, from[1] + " refused with client id " + id + ": " + e);
                refused++;
            }
            requests.add(control.command("rel1", "status", ""));
            Thread.sleep(100);
        }
        int answered = 0;
        for (String id : requests) {
            ControlRoom.Received r = control.reply("rel1", id, 20_000);
            if (r != null && r.json().get("code").getAsInt() == 200) {
                answered++;
            }
        }
        assertEquals(20, answered, "commands to rel1 answered; broker log:\n" + broker.log());
        System.out.printf("MqttIdentityIT: 20 of 20 commands to rel1 answered while rel2 (appliance listener) and"
                + " control (control listener) tried rel1's client ids 10 times each: %d refused at connect, %d"
                + " admitted under an id of their own, in %.1f s%n", refused, admitted, (System.nanoTime() - t0) / 1e9);
        assertEquals(10, refused);
        assertTrue(control.all(m -> m.topic().equals("rtbox/v1/up/rel1/status")
                && m.json().get("state").getAsString().equals("offline")).isEmpty(), "rel1 went offline");
        String log = broker.log();
        assertTrue(!log.contains("Client rel1 already connected"), "rel1 was kicked off:\n" + log);
        assertTrue(log.contains(" as rel1 (") && log.contains("u'rel1'"), "rel1's client id is its user name:\n" + log);

        // The control room's listener takes no appliance user.
        MqttException notThere = assertThrows(MqttException.class,
                () -> thieves.add(connect(broker.controlUri(), "rtbox-x", "rel1")));
        assertTrue(notThere.getReasonCode() == MqttException.REASON_CODE_FAILED_AUTHENTICATION
                || notThere.getReasonCode() == MqttException.REASON_CODE_NOT_AUTHORIZED, notThere.toString());
    }

    /**
     * Broker durability with the shipped configuration: the control room's persistent session is
     * away while an appliance's runs end; the broker is SIGKILLed after it acknowledged their
     * messages, and started again. With mosquitto's default autosave (every 1800 s) a kill lost
     * 6 of 7 such messages; with docs/mosquitto.conf's every-change autosave, none: ten kills
     * ({@code -Drtbox.brokerKills=N}), every run's messages arrive when the control room comes
     * back, numbered without a gap.
     */
    static final int BROKER_KILLS = Integer.getInteger("rtbox.brokerKills", 10);

    @Test
    void theShippedConfigurationKeepsQueuedMessagesThroughBrokerKills() throws Exception {
        broker = Mosquitto.site(brokerDir, "rel1");
        // The control room's session: subscribed once, then away.
        new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, false, "rtbox/v1/up/#").close();
        control = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, "rel1");
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/rel1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "rel1 not online: " + rtbox.err);
        java.util.Map<String, Long> runs = new java.util.LinkedHashMap<>();
        long t0 = System.nanoTime();
        for (int kill = 0; kill < BROKER_KILLS; kill++) {
            String id = control.command("rel1", "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\","
                    + "\"warmup\":\"0\"}");
            ControlRoom.Received r = control.reply("rel1", id, 30_000);
            assertNotNull(r, "no reply; stderr: " + rtbox.err);
            String run = r.json().getAsJsonObject("body").get("run").getAsString();
            ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/rel1/runs/" + run
                    + "/result"), 30_000);
            assertNotNull(result, "no result for " + run);
            runs.put(run, result.json().get("sequence").getAsLong());
            control.close();
            broker.kill();
            broker.start();
            control = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/rel1/status")
                    && m.json().get("state").getAsString().equals("online"), 60_000), "rel1 not back online");
        }
        ControlRoom away = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, false,
                "rtbox/v1/up/#");
        try {
            long sent = 0, received = 0;
            StringBuilder detail = new StringBuilder();
            for (java.util.Map.Entry<String, Long> e : runs.entrySet()) {
                Thread.sleep(200);
                long last = e.getValue();
                ControlRoom.Received res = away.await(m -> m.topic().equals("rtbox/v1/up/rel1/runs/" + e.getKey()
                        + "/result"), 15_000);
                List<Long> got = away.all(m -> m.topic().startsWith("rtbox/v1/up/rel1/runs/" + e.getKey() + "/"))
                        .stream().map(m -> m.json().get("sequence").getAsLong()).distinct().sorted().toList();
                sent += last;
                received += got.size();
                detail.append("\n run ").append(e.getKey()).append(": ").append(got).append(" of 1..").append(last)
                        .append(res == null ? ": its result, queued for the session, did not survive" : "");
            }
            System.out.printf("MqttIdentityIT: %d broker SIGKILLs with docs/mosquitto.conf in %.0f s: messages sent"
                    + " (queued for the away control room) %d, received %d, lost %d%n", BROKER_KILLS,
                    (System.nanoTime() - t0) / 1e9, sent, received, sent - received);
            assertEquals(sent, received, "messages through broker kills:" + detail + "\nbroker log:\n" + broker.log());
        } finally {
            away.close();
        }
    }

    private static MqttClient connect(String uri, String clientId, String user) throws MqttException {
        MqttClient c = new MqttClient(uri, clientId, new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setUserName(user);
        o.setPassword(Mosquitto.PASSWORD.toCharArray());
        o.setCleanSession(false);
        o.setConnectionTimeout(10);
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        c.connect(o);
        return c;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (MqttClient t : thieves) {
            try {
                if (t.isConnected()) {
                    t.disconnectForcibly(0, 500, false);
                }
                t.close(true);
            } catch (MqttException e) {
                // kicked off by the next thief: nothing to close
            }
        }
        if (control != null) {
            control.close();
        }
        if (rtbox != null) {
            rtbox.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
