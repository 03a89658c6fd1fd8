package rtbox.control.internal;

import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttCallback;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.mqtt.client.ClientOptions;
import rtbox.mqtt.client.Clients;

/**
 * The results of a fleet, shared between control-room instances: an MQTT 5 session (Eclipse
 * Paho's mqttv5 client, the only MQTT 5 part of rtbox: appliances keep 3.1.1) subscribed to
 * each run's cells and results through the shared subscription {@code $share/GROUP/...}, so
 * that the broker gives each one to one instance of the group. Manual acknowledgements, as
 * in {@link MqttLink}: a message is acknowledged after its commit, and one that was not is
 * delivered again (to this or another instance) and stored once, since the store is
 * idempotent on (appliance, run, sequence).
 *
 * <p>One subscription, {@code $share/GROUP/rtbox/v1/up/+/runs/#}, and what is not a cell or
 * a result (progress, which every instance takes on its own session) acknowledged at once and
 * dropped. Not one subscription for cells and one for results: Artemis (2.40) counts a
 * session's receive maximum over all its subscriptions, but an acknowledgement wakes only the
 * subscription whose message it was, so results that came while the window was full of cells
 * waited at the broker for good, every cell stored (ControlSharedIngestIT: 1 of 21 results
 * stored with two subscriptions; docs/fleet.md). A session per subscription avoided that too,
 * but lost 28 cells in FleetFaultIT's failover once, where one session loses none.
 *
 * <p>Persistent session (clean start off, a day's expiry): what arrives for the group while
 * every instance is away waits at the broker.
 */
final class SharedIngest implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.mqtt");
    /** What a run sends: its cells and its result are kept; its progress is live, for every instance. */
    static final String[] RUN_TOPICS = {Decoder.UP + "+/runs/#"};
    private static final long SESSION_EXPIRY_S = 24 * 3600;

    /** Where an arrived message goes, with how to acknowledge it once stored. */
    interface Sink {
        void arrived(String topic, byte[] payload, MqttLink.Ack ack) throws InterruptedException;
    }

    private final MqttClient client;
    private final MqttConnectionOptions options;
    private final String group;
    private final Connections connections = new Connections();

    SharedIngest(ClientOptions common, String clientId, String group, Sink sink) throws java.io.IOException {
        this.group = group;
        try {
            client = new MqttClient(common.firstUri(), clientId, new MemoryPersistence());
        } catch (MqttException e) {
            throw new java.io.IOException("the shared results' MQTT 5 client for " + common.brokers() + ": " + e, e);
        }
        options = new MqttConnectionOptions();
        common.applyTo(options::setServerURIs, options::setKeepAliveInterval, options::setConnectionTimeout,
                options::setUserName, p -> options.setPassword(p.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                options::setSocketFactory, options::setHttpsHostnameVerificationEnabled);
        options.setCleanStart(false);
        options.setSessionExpiryInterval(SESSION_EXPIRY_S);
        options.setAutomaticReconnect(true);
        options.setReceiveMaximum(MqttLink.IN_FLIGHT);
        client.setManualAcks(true);
        client.setCallback(new MqttCallback() {
            @Override
            public void connectComplete(boolean reconnect, String uri) {
                // Off Paho's callback thread, as MqttLink does: the messages kept for this session
                // come before the SUBACK and would block the receiver that must read it.
                Thread t = new Thread(() -> {
                    try {
                        MqttSubscription[] subs = new MqttSubscription[RUN_TOPICS.length];
                        for (int i = 0; i < subs.length; i++) {
                            subs[i] = new MqttSubscription("$share/" + group + "/" + RUN_TOPICS[i], 1);
                        }
                        client.subscribe(subs);
                        LOG.info("{} to {}: results shared in group {}", reconnect ? "reconnected" : "connected", uri,
                                group);
                    } catch (MqttException e) {
                        LOG.warn("cannot subscribe to the shared results of group {}: {}", group, String.valueOf(e));
                    }
                }, "rtbox-control-subscribe-shared");
                t.setDaemon(true);
                t.start();
            }

            @Override
            public void disconnected(MqttDisconnectResponse response) {
                connections.lost();
                LOG.warn("shared results: connection lost ({}); reconnecting", response);
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) throws Exception {
                long on = connections.current();
                int id = message.getId();
                int qos = message.getQos();
                if (!topic.endsWith("/cell") && !topic.endsWith("/result")) {
                    acknowledge(id, qos, on); // progress: every instance takes it on its own session
                    return;
                }
                sink.arrived(topic, message.getPayload(), () -> acknowledge(id, qos, on));
            }

            @Override
            public void mqttErrorOccurred(MqttException e) {
                LOG.warn("shared results: {}", String.valueOf(e));
            }

            @Override
            public void deliveryComplete(IMqttToken token) {
            }

            @Override
            public void authPacketArrived(int reasonCode, MqttProperties properties) {
            }
        });
    }

    private void acknowledge(int id, int qos, long on) {
        Exception[] why = new Exception[1];
        if (!connections.acknowledge(on, client::isConnected, () -> client.messageArrivedComplete(id, qos), why)
                && why[0] != null) {
            LOG.warn("cannot acknowledge shared message {} ({}): it will come again", id, why[0]);
        }
    }

    void connect(long timeoutMs) throws java.io.IOException, InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                client.connect(options);
                return;
            } catch (MqttException e) {
                if (System.currentTimeMillis() > end || e.getReasonCode() == 134 /* bad user name or password */
                        || e.getReasonCode() == 135 /* not authorized */) {
                    throw new java.io.IOException("the shared results' MQTT 5 session (group " + group + "): " + e, e);
                }
                Thread.sleep(500);
            }
        }
    }

    boolean connected() {
        return client.isConnected();
    }

    String group() {
        return group;
    }

    @Override
    public void close() {
        Clients.close(client::isConnected, () -> client.disconnect(5000), () -> client.disconnectForcibly(1000, 1000),
                () -> client.close(true), problem -> LOG.warn("close: {}", problem));
    }
}
