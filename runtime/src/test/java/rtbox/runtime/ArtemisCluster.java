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

    // Off unless asked for (BrokerClusterIT, or -Drtbox.artemis.reapMs for bench/fleet): a bench
    // run at 1,000 appliances with it on stalled with results unstored (bench/fleet/README.md).
    private long reapMs = Long.getLong("rtbox.artemis.reapMs", 0);

    /** Addresses without a queue are deleted this long after they were made (ArtemisNode; 30 s). */
    ArtemisCluster reapAfterMs(long ms) {
        reapMs = ms;
        return this;
    }

    /** Starts every node and waits until each serves: all at once, each JVM's start beside the others'. */
    ArtemisCluster start() throws Exception {
        CountDownLatch[] ready = new CountDownLatch[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            ready[i] = launch(i);
        }
        for (int i = 0; i < nodes.length; i++) {
            awaitReady(i, ready[i]);
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
        awaitReady(i, launch(i));
    }

    /** Starts node {@code i}'s JVM; the latch opens when it serves. */
    private CountDownLatch launch(int i) throws IOException {
        Path data = dir.resolve("node" + i);
        Files.createDirectories(data);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Warnings only: Artemis' audit loggers write a line per message at INFO (with the
                // message's body), which made a node under 200 appliances stall (FleetFaultIT).
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                // 256 MB for the tests; bench/fleet sets it with -Drtbox.artemis.heap. (A node of 256 MB
                // once died in full collections: its bridges' duplicate-id caches, one per run topic,
                // not the messages; ArtemisNode.)
                "-Xmx" + System.getProperty("rtbox.artemis.heap", "256m"), "-Drtbox.artemis.reapMs=" + reapMs,
                "-cp", System.getProperty("java.class.path"), ArtemisNode.class.getName(),
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
        return ready;
    }

    private void awaitReady(int i, CountDownLatch ready) throws InterruptedException {
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

    /**
     * kill -9 of every node at once, then waits for each to be gone: a node's data is the test's
     * temporary folder, which nobody reads after. FleetFaultIT's teardown (its fleet, two control
     * rooms, this cluster, PostgreSQL) took 24 s with a SIGTERM to one node after the other, each
     * stopping its broker gracefully; 14 s with the SIGTERMs at once; 2 s so.
     */
    @Override
    public void close() throws InterruptedException {
        for (Process p : nodes) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                nodes[i].waitFor(30, TimeUnit.SECONDS);
                nodes[i] = null;
            }
        }
    }

    /** A JVM's class histogram after a full collection: class name to {instances, bytes}. */
    static java.util.Map<String, long[]> histogram(long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        java.util.Map<String, long[]> m = new java.util.HashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                m.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            } else if (f.length == 3 && f[0].equals("Total")) {
                m.put("Total", new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        if (!m.containsKey("Total")) {
            throw new IllegalStateException("no class histogram of node " + pid + ": " + out);
        }
        return m;
    }
}
