package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttCallback;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a clustered broker really does with what rtbox relies on, checked on three Apache
 * ActiveMQ Artemis nodes (separate JVMs, static cluster, on-demand load balancing): a
 * message published on one node and subscribed on another, retained messages, last wills,
 * and MQTT 5 shared subscriptions ({@code $share/GROUP/...}) whose members sit on
 * different nodes. The findings are written up in docs/fleet.md; each assertion is the
 * behaviour the fleet design counts on (or, for retained messages, the one it must not).
 */
class BrokerClusterIT {
    @TempDir
    static Path dir;
    static ArtemisCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        // Addresses without a queue go after 5 s here (30 s as deployed), so that the test of
        // their removal is short.
        cluster = new ArtemisCluster(dir, 3).reapAfterMs(5000).start();
        // The nodes find each other within a few retry intervals (500 ms) of the last start. Fixed on purpose:
        // a cluster bridge's state is not visible to an MQTT client.
        Thread.sleep(3000);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A Paho MQTT 5 client on one node that queues what it receives. */
    static final class Client implements MqttCallback, AutoCloseable {
        final MqttClient mqtt;
        final LinkedBlockingQueue<String[]> received = new LinkedBlockingQueue<>();

        Client(String uri, String id, MqttConnectionOptions o) throws MqttException {
            mqtt = new MqttClient(uri, id, new MemoryPersistence());
            mqtt.setCallback(this);
            mqtt.connect(o);
        }

        Client(String uri, String id) throws MqttException {
            this(uri, id, options());
        }

        static MqttConnectionOptions options() {
            MqttConnectionOptions o = new MqttConnectionOptions();
            o.setCleanStart(true);
            return o;
        }

        Client subscribe(String filter) throws MqttException {
            mqtt.subscribe(filter, 1).waitForCompletion(10_000);
            return this;
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
        public void disconnected(MqttDisconnectResponse r) {
        }

        @Override
        public void mqttErrorOccurred(MqttException e) {
        }

        @Override
        public void deliveryComplete(IMqttToken token) {
        }

        @Override
        public void connectComplete(boolean reconnect, String uri) {
        }

        @Override
        public void authPacketArrived(int reason, MqttProperties p) {
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
        try (Client sub = new Client(cluster.uri(1), "sub-cross").subscribe("rtbox/v1/up/a1/status");
                Client pub = new Client(cluster.uri(0), "pub-cross")) {
            Thread.sleep(1000); // fixed: the subscription's binding reaches the other nodes (not visible to a client)
            pub.publish("rtbox/v1/up/a1/status", "online", false);
            String[] m = sub.next(10_000);
            assertTrue(m != null && m[1].equals("online"), "published on node 0, subscribed on node 1: " + cluster.tail());
        }
    }

    @Test
    void aRetainedMessageIsKeptOnlyByTheNodeItWasPublishedOn() throws Exception {
        try (Client pub = new Client(cluster.uri(0), "pub-retained")) {
            pub.publish("rtbox/v1/up/r1/status", "online-r1", true);
            Thread.sleep(1000); // fixed: the retained message is stored before anyone subscribes (a broker's inside)
        }
        try (Client same = new Client(cluster.uri(0), "sub-retained-0").subscribe("rtbox/v1/up/r1/status");
                Client other = new Client(cluster.uri(1), "sub-retained-1").subscribe("rtbox/v1/up/r1/status")) {
            String[] onSame = same.next(5000);
            String[] onOther = other.next(3000);
            System.out.println("finding: retained, same node: " + (onSame == null ? "none" : onSame[1])
                    + "; other node: " + (onOther == null ? "none" : onOther[1]));
            assertTrue(onSame != null && onSame[1].equals("online-r1"), "the publishing node keeps it");
            // What the fleet design must not rely on: a new subscriber on another node does not
            // get it. Appliances repeat their status on a heartbeat and answer announce.
            assertEquals(null, onOther, "retained messages are not shared between Artemis nodes");
        }
    }

    @Test
    void aLastWillReachesASubscriberOnAnotherNode() throws Exception {
        try (Client sub = new Client(cluster.uri(2), "sub-will").subscribe("rtbox/v1/up/w1/status")) {
            MqttConnectionOptions o = Client.options();
            MqttMessage will = new MqttMessage("offline-w1".getBytes(StandardCharsets.UTF_8));
            will.setQos(1);
            o.setWill("rtbox/v1/up/w1/status", will);
            Client w = new Client(cluster.uri(0), "w1", o);
            Thread.sleep(1000); // fixed: the session and its will are known across the cluster (not visible to a client)
            // Gone without a DISCONNECT, as a crashed appliance or a cut cable is.
            w.mqtt.disconnectForcibly(0, 1000, false);
            w.mqtt.close(true);
            String[] m = sub.next(15_000);
            System.out.println("finding: will published on node 0, subscriber on node 2: " + (m == null ? "none" : m[1]));
            assertTrue(m != null && m[1].equals("offline-w1"), "the will crosses nodes");
        }
    }

    /**
     * Two members of one shared subscription on the given nodes, {@code n} results published
     * on node 0, each to its own run's topic as appliances publish them: what each member got.
     */
    private static int[] share(int nodeA, int nodeB, int n, String group) throws Exception {
        List<Client> members = new ArrayList<>();
        try (Client pub = new Client(cluster.uri(0), "pub-" + group)) {
            String filter = "$share/" + group + "/rtbox/v1/up/+/runs/#";
            members.add(new Client(cluster.uri(nodeA), group + "-1").subscribe(filter));
            members.add(new Client(cluster.uri(nodeB), group + "-2").subscribe(filter));
            Thread.sleep(3000); // fixed: the members' bindings reach every node (not visible to a client)
            for (int i = 0; i < n; i++) {
                pub.publish("rtbox/v1/up/s" + (i % 10) + "/runs/" + group + "-r" + i + "/result", Integer.toString(i),
                        false);
            }
            Set<String> seen = ConcurrentHashMap.newKeySet();
            int[] per = new int[members.size()];
            int duplicates = 0;
            long deadline = System.currentTimeMillis() + 30_000;
            while (seen.size() < n && System.currentTimeMillis() < deadline) {
                for (int k = 0; k < members.size(); k++) {
                    String[] m;
                    while ((m = members.get(k).next(20)) != null) {
                        per[k]++;
                        if (!seen.add(m[1])) {
                            duplicates++;
                        }
                    }
                }
            }
            System.out.println("finding: $share with members on nodes " + nodeA + " and " + nodeB + ", " + n
                    + " results published on node 0: " + per[0] + " / " + per[1] + ", duplicates " + duplicates
                    + ", missing " + (n - seen.size()));
            assertEquals(n, seen.size(), "every message delivered: " + cluster.tail());
            assertEquals(0, duplicates, "each to one member only");
            return per;
        } finally {
            for (Client c : members) {
                c.close();
            }
        }
    }

    @Test
    void aSharedSubscriptionWhoseMembersShareANodeSplitsTheResultsEvenly() throws Exception {
        int[] per = share(1, 1, 300, "same");
        assertTrue(Math.abs(per[0] - per[1]) <= 0.2 * 150, "even within 20 %: " + per[0] + " / " + per[1]);
    }

    /**
     * Artemis balances a shared subscription across nodes per address, starting over at the
     * first binding for each new one; every result has its own topic (its run's), so one
     * member gets them all. Nothing is lost or doubled, but the load is not shared: the
     * control-room instances of one group connect to the same node (docs/fleet.md).
     */
    @Test
    void aSharedSubscriptionWhoseMembersAreOnTwoNodesGivesEveryResultToOneOfThem() throws Exception {
        int[] per = share(1, 2, 300, "apart");
        assertTrue(per[0] == 300 || per[1] == 300, "one member took all: " + per[0] + " / " + per[1]);
    }

    /**
     * Every run's topic is a new Artemis address, on node 0 where an appliance publishes and on
     * node 1 where the shared subscription is, through a cluster bridge. Node 1 once kept, for
     * each such address, a duplicate-id cache of 20,000 ids (80 KB at once) and the address
     * itself (about 10 KB), forever: a few thousand runs filled a 256 MB or 1 GB heap
     * (bench/fleet, docs/fleet.md). Counted here with a class histogram of node 1 (jcmd, after a
     * full collection): 2,000 results on 2,000 run topics leave no duplicate-id cache, and their
     * addresses are deleted once unused.
     */
    @Test
    void aRunsTopicsLeaveNothingBehindOnTheNodeThatHoldsTheSharedSubscription() throws Exception {
        int n = 2000;
        long node = cluster.pid(1);
        Map<String, long[]> before = ArtemisCluster.histogram(node);
        try (Client pub = new Client(cluster.uri(0), "pub-many");
                Client member = new Client(cluster.uri(1), "many-1").subscribe("$share/many/rtbox/v1/up/+/runs/#")) {
            Thread.sleep(3000); // fixed: the member's binding reaches node 0 (not visible to a client)
            for (int i = 0; i < n; i++) {
                pub.publish("rtbox/v1/up/m" + (i % 10) + "/runs/many-r" + i + "/cell", Integer.toString(i), false);
            }
            Set<String> seen = new java.util.HashSet<>();
            long deadline = System.currentTimeMillis() + 30_000;
            while (seen.size() < n && System.currentTimeMillis() < deadline) {
                String[] m = member.next(100);
                if (m != null) {
                    seen.add(m[1]);
                }
            }
            assertEquals(n, seen.size(), "every result delivered: " + cluster.tail());
            Map<String, long[]> after = ArtemisCluster.histogram(node);
            long caches = count(after, "PersistentDuplicateIDCache") - count(before, "PersistentDuplicateIDCache");
            long addresses = count(after, "core.server.impl.AddressInfo") - count(before, "core.server.impl.AddressInfo");
            System.out.println("finding: " + n + " results on " + n + " run topics from node 0: node 1 has " + addresses
                    + " more addresses, " + caches + " more duplicate-id caches, live heap " + mb(before) + " -> "
                    + mb(after) + " MB");
            assertTrue(caches < n / 20, "a duplicate-id cache per bridged address came back: " + caches);
            long left = addresses;
            for (long end = System.currentTimeMillis() + 30_000; left > n / 20 && System.currentTimeMillis() < end;) {
                Thread.sleep(2000);
                left = count(ArtemisCluster.histogram(node), "core.server.impl.AddressInfo")
                        - count(before, "core.server.impl.AddressInfo");
            }
            System.out.println("finding: node 1's run addresses left after the reaper: " + left);
            assertTrue(left < n / 20, "the run topics' addresses stay on node 1: " + left + " of " + addresses);
        }
    }

    private static long count(Map<String, long[]> histogram, String classSuffix) {
        return histogram.entrySet().stream().filter(e -> e.getKey().endsWith(classSuffix)).mapToLong(e -> e.getValue()[0])
                .sum();
    }

    private static long mb(Map<String, long[]> histogram) {
        return histogram.get("Total")[1] >> 20;
    }
}
