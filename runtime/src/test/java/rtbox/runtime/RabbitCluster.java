package rtbox.runtime;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Debian's RabbitMQ (3.10, package rabbitmq-server, with its MQTT plugin) as a cluster of
 * nodes on loopback, for BrokerClusterIT's comparison: each node in its own folder, with its
 * own AMQP, MQTT and distribution ports, one Erlang cookie (a 0400 file in the cluster's own
 * HOME, never on a command line) and an epmd of the cluster's own on a free port, stopped at
 * the end. Nodes 2..n join node 1 with {@code rabbitmqctl join_cluster}.
 */
final class RabbitCluster implements AutoCloseable {
    static final Path SERVER = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
    static final Path CTL = Path.of("/usr/lib/rabbitmq/bin/rabbitmqctl");

    private final Path dir;
    private final int count;
    private final int epmdPort;
    private final int[] mqttPorts;
    private final List<Process> nodes = new ArrayList<>();

    RabbitCluster(Path dir, int count) throws IOException {
        if (!Files.isExecutable(SERVER)) {
            throw new IllegalStateException(SERVER + " is missing: apt-get install rabbitmq-server (.ci/run does)");
        }
        this.dir = dir;
        this.count = count;
        this.epmdPort = freePort();
        this.mqttPorts = new int[count];
        Path home = Files.createDirectories(dir.resolve("home"));
        Path cookie = home.resolve(".erlang.cookie");
        Files.writeString(cookie, UUID.randomUUID().toString().replace("-", ""), StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(cookie, PosixFilePermissions.fromString("r--------"));
        Files.writeString(dir.resolve("enabled_plugins"), "[rabbitmq_mqtt].\n");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    String node(int i) {
        return "rtbox" + (i + 1) + "@localhost";
    }

    String uri(int i) {
        return "tcp://127.0.0.1:" + mqttPorts[i];
    }

    private void environment(Map<String, String> env) {
        env.put("HOME", dir.resolve("home").toString());
        env.put("ERL_EPMD_PORT", Integer.toString(epmdPort));
        env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
        // a node that fails to boot writes its crash dump here, not into the build's working folder
        env.put("ERL_CRASH_DUMP", dir.resolve("erl_crash.dump").toString());
    }

    RabbitCluster start() throws Exception {
        for (int i = 0; i < count; i++) {
            Path n = Files.createDirectories(dir.resolve("node" + (i + 1)));
            mqttPorts[i] = freePort();
            Files.writeString(n.resolve("rabbitmq.conf"), String.join("\n",
                    "listeners.tcp.default = 127.0.0.1:" + freePort(),
                    "mqtt.listeners.tcp.default = 127.0.0.1:" + mqttPorts[i],
                    "mqtt.allow_anonymous = true",
                    "loopback_users = none", ""));
            ProcessBuilder pb = new ProcessBuilder(SERVER.toString()).redirectErrorStream(true)
                    .redirectOutput(n.resolve("server.out").toFile());
            Map<String, String> env = pb.environment();
            environment(env);
            env.put("RABBITMQ_NODENAME", node(i));
            env.put("RABBITMQ_DIST_PORT", Integer.toString(freePort()));
            env.put("RABBITMQ_CONFIG_FILE", n.resolve("rabbitmq.conf").toString());
            env.put("RABBITMQ_ADVANCED_CONFIG_FILE", n.resolve("advanced.config").toString());
            env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
            env.put("RABBITMQ_MNESIA_BASE", n.resolve("mnesia").toString());
            env.put("RABBITMQ_LOG_BASE", n.resolve("log").toString());
            env.put("RABBITMQ_PID_FILE", n.resolve("pid").toString());
            // inter-node traffic on loopback only
            env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}");
            nodes.add(pb.start());
        }
        try {
            for (int i = 0; i < count; i++) {
                awaitStartup(i, 120);
            }
            join();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        return this;
    }

    /**
     * Waits for a node to boot: await_startup itself fails at once while the node has not
     * yet registered with epmd (its first seconds), so it is asked again until the deadline.
     */
    private void awaitStartup(int i, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try {
                ctl(seconds, "-n", node(i), "await_startup");
                return;
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline || !nodes.get(i).isAlive()) {
                    Path out = dir.resolve("node" + (i + 1)).resolve("server.out");
                    String tail = Files.isRegularFile(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
                    tail = tail.substring(Math.max(0, tail.length() - 2000));
                    throw new IllegalStateException(node(i) + " did not start; the end of its output: " + tail, e);
                }
                Thread.sleep(500);
            }
        }
    }

    private void join() throws Exception {
        for (int i = 1; i < count; i++) {
            ctl(60, "-n", node(i), "stop_app");
            ctl(60, "-n", node(i), "join_cluster", node(0));
            ctl(60, "-n", node(i), "start_app");
        }
        String status = ctl(60, "-n", node(0), "cluster_status", "--formatter", "json");
        for (int i = 0; i < count; i++) {
            if (!status.contains("\"" + node(i) + "\"")) {
                throw new IllegalStateException(node(i) + " is not in the cluster: " + status);
            }
        }
    }

    /** rabbitmqctl's output; an exception naming the command and its output when it fails. */
    String ctl(long seconds, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(CTL.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        environment(pb.environment());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("rabbitmqctl " + String.join(" ", args) + " failed: "
                    + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws Exception {
        for (int i = count - 1; i >= 0; i--) {
            try {
                ctl(60, "-n", node(i), "stop");
            } catch (IllegalStateException | IOException e) {
                // gone already; the process tree is killed below
            }
        }
        for (Process p : nodes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        // the cluster's own epmd: started by the first node, it outlives the nodes
        ProcessBuilder pb = new ProcessBuilder("epmd", "-kill").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        environment(pb.environment());
        pb.start().waitFor(10, TimeUnit.SECONDS);
    }
}
