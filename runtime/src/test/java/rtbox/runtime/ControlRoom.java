package rtbox.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** The tests' control room: an MQTT client that keeps every message it receives. */
final class ControlRoom implements AutoCloseable {
    record Received(String topic, String payload, boolean retained, long atMs) {
        JsonObject json() {
            return JsonParser.parseString(payload).getAsJsonObject();
        }
    }

    final List<Received> received = new ArrayList<>();
    final MqttClient client;
    private final String[] subscriptions;

    ControlRoom(String uri, String user, String password, String... subscriptions) throws MqttException {
        this(uri, user, password, true, subscriptions);
    }

    /**
     * With {@code cleanSession} false the broker keeps this client's subscriptions and queues its
     * messages while it is away (a fixed client id per user).
     */
    ControlRoom(String uri, String user, String password, boolean cleanSession, String... subscriptions)
            throws MqttException {
        client = new MqttClient(uri, "rtbox-test-" + user + (cleanSession ? "-" + UUID.randomUUID() : ""),
                new MemoryPersistence());
        this.subscriptions = subscriptions.clone();
        client.setCallback(new MqttCallbackExtended() {
            @Override
            public void connectionLost(Throwable cause) {
            }

            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
                // A clean session loses its subscriptions with the connection: after an automatic
                // reconnect they are made again, off Paho's callback thread (a subscribe waits for its
                // acknowledgement, which that thread would have to deliver).
                if (reconnect && cleanSession) {
                    Thread t = new Thread(ControlRoom.this::resubscribe, "control-room-resubscribe");
                    t.setDaemon(true);
                    t.start();
                }
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                synchronized (received) {
                    received.add(new Received(topic, new String(message.getPayload(), StandardCharsets.UTF_8),
                            message.isRetained(), System.currentTimeMillis()));
                    received.notifyAll();
                }
            }

            @Override
            public void deliveryComplete(org.eclipse.paho.client.mqttv3.IMqttDeliveryToken token) {
            }
        });
        // rtbox's own client layer, as the control room and rtbox ctl set their options: among them
        // sockets that send at once (without, each command waited ~40 ms for the broker's delayed ACK).
        MqttConnectOptions o = new rtbox.mqtt.client.ClientOptions(uri, user, password, null, 60, 5).v3();
        o.setCleanSession(cleanSession);
        o.setAutomaticReconnect(true);
        client.connect(o);
        subscribe();
    }

    private void subscribe() throws MqttException {
        for (String s : subscriptions) {
            try {
                client.subscribe(s, 1);
            } catch (MqttException e) {
                // refused by the broker's ACL (granted QoS 0x80): the tests check what does (not)
                // arrive; any other failure is the fixture's and fails the test
                if (e.getReasonCode() != MqttException.REASON_CODE_SUBSCRIBE_FAILED) {
                    throw e;
                }
            }
        }
    }

    private void resubscribe() {
        try {
            subscribe();
        } catch (MqttException e) {
            // lost again before the subscribe was acknowledged: the next reconnect tries again
            System.err.println("control room: resubscribe after reconnect failed: " + e);
        }
    }

    /** Sends a command with a fresh request id and an expiry one minute ahead; returns the request id. */
    String command(String appliance, String verb, String body) throws MqttException {
        String id = UUID.randomUUID().toString();
        String json = "{\"requestId\":\"" + id + "\",\"expires\":\"" + Instant.now().plusSeconds(60) + "\""
                + (body.isEmpty() ? "" : "," + body) + "}";
        send("rtbox/v1/down/" + appliance + "/cmd/" + verb, json);
        return id;
    }

    void send(String topic, String payload) throws MqttException {
        client.publish(topic, payload.getBytes(StandardCharsets.UTF_8), 1, false);
    }

    /** The first message matching, waiting up to {@code timeoutMs}; null if none came. */
    Received await(Predicate<Received> match, long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        synchronized (received) {
            while (true) {
                for (Received r : received) {
                    if (match.test(r)) {
                        return r;
                    }
                }
                long left = end - System.currentTimeMillis();
                if (left <= 0) {
                    return null;
                }
                received.wait(left);
            }
        }
    }

    Received reply(String appliance, String requestId, long timeoutMs) throws InterruptedException {
        String topic = "rtbox/v1/up/" + appliance + "/reply/" + requestId;
        return await(r -> r.topic().equals(topic), timeoutMs);
    }

    List<Received> all(Predicate<Received> match) {
        synchronized (received) {
            return received.stream().filter(match).toList();
        }
    }

    @Override
    public void close() throws MqttException {
        if (client.isConnected()) {
            client.disconnect(2000);
        }
        client.close();
    }
}
