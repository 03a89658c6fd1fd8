package rtbox.runtime;

import java.util.ArrayList;
import java.util.List;

import org.apache.activemq.artemis.core.config.ClusterConnectionConfiguration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.cluster.impl.MessageLoadBalancingType;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

/**
 * One node of a clustered Apache ActiveMQ Artemis broker, in a JVM of its own (so that a
 * test can kill -9 it): MQTT (3.1.1 and 5) and Artemis' core protocol on one loopback
 * port, a static cluster connection to the other nodes, messages load-balanced on demand
 * (a node forwards to the nodes that have a subscriber for them) and redistributed at once
 * from a node whose subscribers left, and a persistent journal (NIO, no libaio) under its
 * data folder, so that a QoS 1 message a node accepted survives its restart.
 *
 * <pre>java -cp TEST_CLASSPATH rtbox.runtime.ArtemisNode INDEX DATA_DIR PORT0 PORT1 ...</pre>
 *
 * Prints "artemis node INDEX ready" once it serves. No security: the findings test is about
 * routing; an Artemis that a site runs has its users and roles (docs/fleet.md).
 */
public final class ArtemisNode {
    private ArtemisNode() {
    }

    public static void main(String[] args) throws Exception {
        int index = Integer.parseInt(args[0]);
        String data = args[1];
        List<Integer> ports = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            ports.add(Integer.parseInt(args[i]));
        }
        ConfigurationImpl c = new ConfigurationImpl();
        c.setName("node" + index);
        c.setPersistenceEnabled(true);
        c.setJournalType(org.apache.activemq.artemis.core.server.JournalType.NIO);
        c.setJournalDirectory(data + "/journal");
        c.setBindingsDirectory(data + "/bindings");
        c.setPagingDirectory(data + "/paging");
        c.setLargeMessagesDirectory(data + "/large");
        c.setSecurityEnabled(false);
        c.setJMXManagementEnabled(false);
        c.setClusterUser("cluster");
        c.setClusterPassword("cluster-" + ports.get(0));
        c.addAcceptorConfiguration("all", "tcp://127.0.0.1:" + ports.get(index) + "?protocols=CORE,MQTT");
        List<String> others = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            c.addConnectorConfiguration("node" + i, "tcp://127.0.0.1:" + ports.get(i));
            if (i != index) {
                others.add("node" + i);
            }
        }
        // No duplicate detection on the cluster's bridges: with it, a node keeps a cache of
        // 20,000 ids (an 80 KB array at once) for every address a bridge ever brought it, and
        // never frees it, since rtbox's addresses (a run's topics) have no queue of their own.
        // Each run is three new addresses, so the node that holds the shared subscription filled
        // its heap with these caches after some thousand runs, whatever the messages' size
        // (docs/fleet.md, "The broker node's heap"). Without it a bridge that resends after a
        // failure may deliver a message twice: QoS 1 allows that, and the control room stores a
        // message once.
        c.addClusterConfiguration(new ClusterConnectionConfiguration().setName("rtbox").setConnectorName("node" + index)
                .setStaticConnectors(others).setMessageLoadBalancingType(MessageLoadBalancingType.ON_DEMAND)
                .setRetryInterval(500).setReconnectAttempts(-1).setMaxHops(1).setDuplicateDetection(false));
        // A shared subscription's queue on a node whose consumer is gone hands its messages to
        // the nodes that still have consumers, at once.
        c.addAddressSetting("#", new AddressSettings().setRedistributionDelay(0));
        // rtbox's addresses without a queue of their own (every run's topics: subscriptions are
        // on wildcard addresses) are deleted a while after they were made (about 10 KB each on
        // a node: its paging store, cursors and bindings); a message on one makes it again.
        // Artemis deletes an auto-created address only once a queue was removed from it,
        // unless the usage check is skipped. Queues (subscriptions, retained messages) keep
        // their addresses.
        // Off by default (0): with it on, a bench run at 1,000 appliances stalled with results
        // unstored, which is not yet told apart from the reaper (bench/fleet/README.md); a lost
        // result is worse than a node's heap, and the bridges' caches were most of that.
        long reapMs = Long.getLong("rtbox.artemis.reapMs", 0);
        if (reapMs > 0) {
            c.setAddressQueueScanPeriod(reapMs);
            c.addAddressSetting("rtbox.#", new AddressSettings().setRedistributionDelay(0).setAutoDeleteAddresses(true)
                    .setAutoDeleteAddressesSkipUsageCheck(true).setAutoDeleteAddressesDelay(reapMs));
        }
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ();
        broker.setConfiguration(c);
        broker.start();
        System.out.println("artemis node " + index + " ready");
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.stop();
            } catch (Exception e) {
                // exiting
            }
        }));
        Thread.currentThread().join();
    }
}
