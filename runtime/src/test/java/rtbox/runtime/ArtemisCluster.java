package rtbox.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A clustered MQTT broker on loopback for tests: N Apache ActiveMQ Artemis nodes
 * ({@link ArtemisNode}), each in its own JVM, so that one can be killed (-9) and started
 * again on its data while the others serve.
 */
final class ArtemisCluster implements AutoCloseable {
    private final Path dir;
    private final int[] ports;
    private final Process[] nodes;
    private final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());

    ArtemisCluster(Path dir, int size) throws IOException {
        this.dir = dir;
        this.ports = new int[size];
        this.nodes = new Process[size];
        for (int i = 0; i < size; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                ports[i] = s.getLocalPort();
            }
        }
    }

    /** Starts every node and waits until each serves. */
    ArtemisCluster start() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            start(i);
        }
        return this;
    }

    String uri(int node) {
        return "tcp://127.0.0.1:" + ports[node];
    }

    int size() {
        return nodes.length;
    }

    /** Starts node {@code i} (again, on its data) and waits until it serves. */
    void start(int i) throws Exception {
        Path data = dir.resolve("node" + i);
        Files.createDirectories(data);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Warnings only: Artemis' audit loggers write a line per message at INFO (with the
                // message's body), which made a node under 200 appliances stall (FleetFaultIT).
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                // 256 MB for the tests; bench/fleet gives 1 GB (-Drtbox.artemis.heap): a node of 256 MB died
                // in full collections under a backlog of 1,200 90 KB cells for the shared subscription.
                "-Xmx" + System.getProperty("rtbox.artemis.heap", "256m"), "-cp", System.getProperty("java.class.path"), ArtemisNode.class.getName(),
                Integer.toString(i), data.toString()));
        for (int p : ports) {
            cmd.add(Integer.toString(p));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        nodes[i] = p;
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    log.add("node" + i + ": " + line);
                    synchronized (log) {
                        if (log.size() > 2000) {
                            log.subList(0, 1000).clear();
                        }
                    }
                    if (line.startsWith("artemis node " + i + " ready")) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the node died
            }
        }, "artemis-node" + i + "-log");
        reader.setDaemon(true);
        reader.start();
        if (!ready.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("artemis node " + i + " did not start: " + tail());
        }
    }

    /** Node {@code i}'s process id (its JVM). */
    long pid(int i) {
        return nodes[i].pid();
    }

    /** kill -9 of node {@code i}. */
    void kill(int i) throws InterruptedException {
        Process p = nodes[i];
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            nodes[i] = null;
        }
    }

    String tail() {
        synchronized (log) {
            return String.join("\n", log.subList(Math.max(0, log.size() - 30), log.size()));
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < nodes.length; i++) {
            Process p = nodes[i];
            if (p != null) {
                p.destroy();
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
                nodes[i] = null;
            }
        }
    }
}
