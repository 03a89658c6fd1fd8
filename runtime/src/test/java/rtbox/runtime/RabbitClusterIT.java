package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other broker that Debian has, checked as BrokerClusterIT checks Artemis: three
 * RabbitMQ 3.10 nodes (Debian 12's rabbitmq-server with its MQTT plugin) in one cluster on
 * loopback, and what they do with a message published on one node and subscribed on
 * another, retained messages, last wills and {@code $share} subscriptions. Its MQTT is 3.1.1
 * only, so the clients here are Paho's mqttv3, as the appliances' are. The findings are in
 * docs/fleet.md ("What a clustered broker really does"); each assertion is one, so that a
 * broker upgrade that changes one fails here.
 */
class RabbitClusterIT {
    @TempDir
    static Path dir;
    static RabbitCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new RabbitCluster(dir, 3).start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A Paho MQTT 3.1.1 client on one node that queues what it receives. */
    static final class Client implements MqttCallback, AutoCloseable {
        final MqttClient mqtt;
        final LinkedBlockingQueue<String[]> received = new LinkedBlockingQueue<>();

        Client(String uri, String id, MqttConnectOptions o) throws MqttException {
            mqtt = new MqttClient(uri, id, new MemoryPersistence());
            mqtt.setCallback(this);
            mqtt.connect(o);
        }

        Client(String uri, String id) throws MqttException {
            this(uri, id, options());
        }

        static MqttConnectOptions options() {
            MqttConnectOptions o = new MqttConnectOptions();
            o.setCleanSession(true);
            o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
            return o;
        }

        /** Subscribes; the QoS the broker granted (128: refused). */
        int subscribe(String filter) throws MqttException {
            return mqtt.subscribeWithResponse(filter, 1).getGrantedQos()[0];
        }

        void publish(String topic, String payload, boolean retained) throws MqttException {
            MqttMessage m = new MqttMessage(payload.getBytes(StandardCharsets.UTF_8));
            m.setQos(1);
            m.setRetained(retained);
            mqtt.publish(topic, m);
        }

        String[] next(long ms) throws InterruptedException {
            return received.poll(ms, TimeUnit.MILLISECONDS);
        }

        @Override
        public void messageArrived(String topic, MqttMessage message) {
            received.add(new String[] {topic, new String(message.getPayload(), StandardCharsets.UTF_8)});
        }

        @Override
        public void connectionLost(Throwable cause) {
        }

        @Override
        public void deliveryComplete(IMqttDeliveryToken token) {
        }

        @Override
        public void close() throws MqttException {
            if (mqtt.isConnected()) {
                mqtt.disconnect();
            }
            mqtt.close();
        }
    }

    @Test
    void aMessageReachesASubscriberOnAnotherNode() throws Exception {
        try (Client sub = new Client(cluster.uri(1), "sub-cross"); Client pub = new Client(cluster.uri(0), "pub-cross")) {
            assertEquals(1, sub.subscribe("rtbox/v1/up/a1/status"));
            pub.publish("rtbox/v1/up/a1/status", "online-a1", false);
            String[] m = sub.next(10_000);
            System.out.println("finding: RabbitMQ, published on node 0, subscriber on node 1: " + (m == null ? "none" : m[1]));
            assertArrayEquals(new String[] {"rtbox/v1/up/a1/status", "online-a1"}, m);
        }
    }

    @Test
    void aRetainedMessageIsKeptOnlyByTheNodeItWasPublishedOn() throws Exception {
        try (Client pub = new Client(cluster.uri(0), "pub-retained")) {
            pub.publish("rtbox/v1/up/r1/status", "online-r1", true);
        }
        try (Client same = new Client(cluster.uri(0), "sub-retained-0");
                Client other = new Client(cluster.uri(1), "sub-retained-1")) {
            same.subscribe("rtbox/v1/up/r1/status");
            other.subscribe("rtbox/v1/up/r1/status");
            String[] onSame = same.next(5_000);
            String[] onOther = other.next(3_000);
            System.out.println("finding: RabbitMQ, retained, same node: " + (onSame == null ? "none" : onSame[1])
                    + "; other node: " + (onOther == null ? "none" : onOther[1]));
            assertTrue(onSame != null && onSame[1].equals("online-r1"), "the publishing node keeps it");
            assertNull(onOther, "retained messages are not shared between RabbitMQ nodes");
        }
    }

    @Test
    void aLastWillReachesASubscriberOnAnotherNode() throws Exception {
        try (Client sub = new Client(cluster.uri(2), "sub-will")) {
            sub.subscribe("rtbox/v1/up/w1/status");
            MqttConnectOptions o = Client.options();
            o.setWill("rtbox/v1/up/w1/status", "offline-w1".getBytes(StandardCharsets.UTF_8), 1, false);
            Client w = new Client(cluster.uri(0), "w1", o);
            // Gone without a DISCONNECT, as a crashed appliance or a cut cable is.
            w.mqtt.disconnectForcibly(0, 1000, false);
            w.mqtt.close(true);
            String[] m = sub.next(15_000);
            System.out.println("finding: RabbitMQ, will published on node 0, subscriber on node 2: "
                    + (m == null ? "none" : m[1]));
            assertTrue(m != null && m[1].equals("offline-w1"), "the will crosses nodes");
        }
    }

    /**
     * RabbitMQ 3.10 grants a {@code $share/GROUP/...} subscription but does not know the form:
     * it is an ordinary filter whose first level is "$share", so the results it was meant for
     * reach no member at all. A control room relying on it would lose every result silently.
     */
    @Test
    void aSharedSubscriptionIsGrantedButTakenAsAPlainFilterSoResultsReachNoMember() throws Exception {
        String filter = "$share/ingest/rtbox/v1/up/+/runs/#";
        try (Client a = new Client(cluster.uri(1), "share-a"); Client b = new Client(cluster.uri(2), "share-b");
                Client pub = new Client(cluster.uri(0), "share-pub")) {
            assertEquals(1, a.subscribe(filter), "granted, not refused");
            assertEquals(1, b.subscribe(filter), "granted, not refused");
            for (int i = 0; i < 20; i++) {
                pub.publish("rtbox/v1/up/a1/runs/r" + i + "/result", "result-" + i, false);
            }
            String[] toA = a.next(3_000);
            String[] toB = b.next(500);
            pub.publish("$share/ingest/rtbox/v1/up/a1/runs/r0/result", "literal", false);
            String[] literalA = a.next(5_000);
            String[] literalB = b.next(5_000);
            System.out.println("finding: RabbitMQ, $share with members on nodes 1 and 2, 20 results from node 0: "
                    + (toA == null && toB == null ? "none reached either member" : "delivered")
                    + "; a message published on the literal topic $share/ingest/...: "
                    + (literalA != null && literalB != null ? "to both members" : "not to both"));
            assertNull(toA, "a result reached member a");
            assertNull(toB, "a result reached member b");
            assertTrue(literalA != null && literalB != null, "the filter is taken literally, by every member");
        }
    }

    @Test
    void anMqtt5ClientIsRefused() throws Exception {
        org.eclipse.paho.mqttv5.client.MqttClient v5 = new org.eclipse.paho.mqttv5.client.MqttClient(
                cluster.uri(0), "v5", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
        org.eclipse.paho.mqttv5.client.MqttConnectionOptions o = new org.eclipse.paho.mqttv5.client.MqttConnectionOptions();
        o.setConnectionTimeout(10);
        Exception e = assertThrows(Exception.class, () -> v5.connect(o));
        System.out.println("finding: RabbitMQ 3.10, an MQTT 5 CONNECT: refused (" + e + ")");
        v5.close(true);
    }
}
