package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12: an appliance whose first broker node takes connections and never answers (a
 * stalled node of a cluster) still gets on through the next node of its {@code brokers}
 * list. Paho tries a connect's URIs in order but waits on the stalled one until the link
 * gives up (connectTimeoutSeconds + 2 s); the next attempt must then start at the next node,
 * not at the stalled one again (before: never online).
 */
class MqttBrokerListIT {
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    private Mosquitto broker;
    private Rtbox rtbox;
    private ControlRoom control;
    private ServerSocket stalled;
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {control, rtbox, broker, stalled}) {
            if (c != null) {
                c.close();
            }
        }
        for (Socket s : held) {
            s.close();
        }
    }

    @Test
    void aStalledFirstNodeIsPassedOver() throws Exception {
        broker = new Mosquitto(brokerDir, "bl1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        // A node that accepts the TCP connection and never sends CONNACK.
        stalled = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    held.add(stalled.accept());
                }
            } catch (IOException e) {
                // closed: the test ended
            }
        }, "stalled-node");
        acceptor.setDaemon(true);
        acceptor.start();

        rtbox = new Rtbox(home);
        Files.writeString(rtbox.home.resolve("etc/rtbox.mqtt.cfg"), String.join("\n",
                "brokers=tcp://127.0.0.1:" + stalled.getLocalPort() + "," + broker.uri(),
                "appliance=bl1",
                "username=bl1",
                "password=" + Mosquitto.PASSWORD,
                "keepAliveSeconds=2",
                "connectTimeoutSeconds=3",
                ""));
        long started = System.currentTimeMillis();
        rtbox.start("serve");
        ControlRoom.Received online = control.await(r -> r.topic().equals("rtbox/v1/up/bl1/status")
                && r.json().get("state").getAsString().equals("online"), 40_000);
        assertNotNull(online, "bl1 never got past the stalled node; stderr: " + rtbox.err);
        assertTrue(!held.isEmpty(), "the stalled node, first in the list, was tried first");
        assertTrue(rtbox.err.toString().contains("from " + broker.uri()),
                "the next attempt starts at the next node, and says so: " + rtbox.err);
        System.out.println("MqttBrokerListIT: online through the second node " + (online.atMs() - started)
                + " ms after the start; the stalled node held " + held.size() + " connection(s)");
    }
}
