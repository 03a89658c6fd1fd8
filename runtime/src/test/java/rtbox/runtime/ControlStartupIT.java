package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;

/**
 * Issue 33 item 4: the control room's ingest, MQTT link and operations are components of their
 * own, and the link connects only once the ingest and its hook (the operations) are up. A status
 * that an appliance sent while the control room was away (killed; the broker kept it for the
 * control room's persistent session, not retained) must go through the whole chain at the next
 * start: stored (the appliance is in the fleet) and followed by the hook (a new appliance is
 * asked for its bundles). The appliance here is a bare client that answers no announce, so only
 * the kept message can have told the control room about it.
 */
class ControlStartupIT {
    @TempDir
    Path brokerDir;
    @TempDir
    Path home;

    @Test
    void aStatusSentWhileTheControlRoomWasAwayIsStoredAndFollowedByItsHookAtTheNextStart() throws Exception {
        try (Mosquitto broker = Mosquitto.site(brokerDir, "a1")) {
            try (ControlServer first = new ControlServer(home, broker.controlUri(), List.of(),
                    "appliancesFile=" + broker.appliancePasswords())) {
                // The control room's persistent session and its subscription now exist at the broker.
            }
            MqttClient a1 = new MqttClient(broker.uri(), "rtbox-a1", new MemoryPersistence());
            BlockingQueue<String> commands = new LinkedBlockingQueue<>();
            try {
                MqttConnectOptions o = new MqttConnectOptions();
                o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
                o.setUserName("a1");
                o.setPassword(Mosquitto.PASSWORD.toCharArray());
                a1.connect(o);
                a1.subscribe("rtbox/v1/down/a1/cmd/#", 1, (topic, m) -> commands.add(topic));
                Instant now = Instant.now();
                Status s = new Status("a1", now, Status.ONLINE, now, false, null, null, null, null, null, null,
                        List.of("timer"), List.of(), 0L, 0L, "rtbox startup test");
                a1.publish(Topics.status("a1"), Codec.encode(s), 1, false);

                try (ControlServer second = new ControlServer(home, broker.controlUri(), List.of(),
                        "appliancesFile=" + broker.appliancePasswords())) {
                    String asked = commands.poll(60, TimeUnit.SECONDS);
                    assertNotNull(asked, "the new appliance was not asked for its bundles after the start");
                    assertEquals("rtbox/v1/down/a1/cmd/bundles", asked);
                    ControlServer.Client admin = second.client();
                    assertEquals(200, admin.login("admin", second.adminPassword()).status());
                    JsonObject appliance = admin.get("/appliances/a1").json();
                    assertEquals("a1", appliance.get("id").getAsString(), appliance.toString());
                }
            } finally {
                if (a1.isConnected()) {
                    a1.disconnect(1000);
                }
                a1.close();
            }
        }
    }
}
