package rtbox.ctl.internal;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.osgi.service.component.annotations.Component;

import com.google.gson.JsonObject;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.result.Verdict;
import rtbox.core.RunRequests;
import rtbox.cli.Subcommand;
import rtbox.ctl.Ctl;
import rtbox.core.RunSchema;
import rtbox.mqtt.client.ClientOptions;
import rtbox.mqtt.client.Clients;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Message;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.Reply;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Tls;
import rtbox.mqtt.protocol.Topics;

/**
 * Over 400 lines for now: the broker options and three subcommands (list, run, swap) with
 * their picocli declarations; plan and results are in CtlPlans. Run would be the next to
 * move to a file of its own.
 *
 * <p>{@code rtbox ctl}: the control room's command line over MQTT. Lists appliances from
 * their retained status, runs a probe on one or several and follows them to their
 * results, swaps a bundle. Exits as every rtbox command (Verdict.Outcome.exitCode): 0 when
 * everything asked for passed, 1 when a run failed its thresholds, 2 on any error (no
 * reply, an error reply, a timeout), 3 when a run was inconclusive.
 * Registered as a service that rtbox.cli adds as a subcommand, and as the typed {@link Ctl}
 * that {@code rtbox job} runs.
 */
@Component(service = {Subcommand.class, Ctl.class})
@Command(name = "ctl", description = "The control room over MQTT: list, run, plan, results, swap.",
        subcommands = {CtlCommand.Ls.class, CtlCommand.Run.class, CtlPlans.Plan.class, CtlPlans.Results.class, CtlGate.class,
                CtlCommand.Swap.class})
public class CtlCommand implements Callable<Integer>, Ctl, Subcommand {
    static final int OK = Verdict.Outcome.PASS.exitCode(), ERROR = Verdict.Outcome.ERROR.exitCode();

    @Override
    public int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(this);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            err.println("rtbox ctl: error: " + e.getMessage());
            return ERROR;
        });
        return cl.execute(args);
    }
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ERROR;
    }

    /**
     * {@code ctl run -D}, in rtbox's one time grammar (RunSchema.duration): checked here
     * before the command is sent, read again by the appliance. Public for RunSchemaTest.
     */
    /**
     * {@code --policy} and {@code -p} as the run request's one policy text ({@code fifo:80}); a
     * priority alone means SCHED_FIFO, as with {@code rtbox run -p}. Null when neither is given.
     */
    static String policy(String policy, Integer priority) {
        boolean prio = priority != null && priority > 0;
        if (policy == null && !prio) {
            return null;
        }
        return (policy == null ? "fifo" : policy) + (prio ? ":" + priority : "");
    }

    public static long durationNs(String duration) throws rtbox.api.RtboxException {
        return rtbox.core.RunSchema.duration("duration", duration);
    }

    /** Broker options shared by every ctl command; environment variables give the defaults. */
    static final class Broker {
        @Option(names = "--broker", paramLabel = "URI", defaultValue = "${env:RTBOX_BROKER:-tcp://127.0.0.1:1883}",
                description = "Broker URI (default \\$RTBOX_BROKER or ${DEFAULT-VALUE}).")
        String uri;
        @Option(names = "--user", defaultValue = "${env:RTBOX_USER:-control}",
                description = "User name (default \\$RTBOX_USER or ${DEFAULT-VALUE}).")
        String user;
        @Option(names = "--password", defaultValue = "${env:RTBOX_PASSWORD:-}",
                description = "Password (default \\$RTBOX_PASSWORD).")
        String password;
        @Option(names = "--password-file", paramLabel = "FILE", defaultValue = "${env:RTBOX_PASSWORD_FILE:-}",
                description = "Read the password from FILE (default \\$RTBOX_PASSWORD_FILE), e.g. rtbox broker's"
                        + " data/broker/password.")
        String passwordFile;
        @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:RTBOX_CA:-}",
                description = "For ssl:// brokers: the CA certificates (PEM, as mosquitto's cafile) or trust store"
                        + " (PKCS12, JKS) that signed the broker's certificate (default \\$RTBOX_CA, else the JVM's CAs).")
        String ca;
        @Option(names = "--cert", paramLabel = "FILE", defaultValue = "${env:RTBOX_CERT:-}",
                description = "For ssl:// brokers: a client certificate and key as a PKCS12 or JKS key store"
                        + " (default \\$RTBOX_CERT).")
        String cert;
        @Option(names = "--cert-password", paramLabel = "PW", defaultValue = "${env:RTBOX_CERT_PASSWORD:-}",
                description = "The key store's password (default \\$RTBOX_CERT_PASSWORD).")
        String certPassword;

        /** What arrived, in order; {@code lost} (topic and payload null) when the connection dropped. */
        record Received(String topic, byte[] payload, String lost) {
            /** The message, or null after saying on {@code err} why it is not one of rtbox's. */
            Message decode(PrintWriter err) {
                try {
                    return Codec.decode(topic, payload);
                } catch (ProtocolException e) {
                    err.println("rtbox ctl: ignored a message on " + topic + ": " + e.getMessage());
                    return null;
                }
            }
        }

        final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

        /**
         * Connects and subscribes; a connection that the broker drops between its CONNACK and the
         * SUBSCRIBE is made again (twice at most). Moquette 0.17, the embedded broker of
         * {@code rtbox job} and the control room, acknowledges a connection before it takes it for
         * connected, and drops one whose SUBSCRIBE comes in between ("SUBSCRIBE received on
         * already closed connection"): seen once in CI, with sockets that send at once.
         */
        MqttClient connect(String... topics) throws MqttException {
            for (int attempt = 1;; attempt++) {
                MqttClient c = connectOnce();
                try {
                    for (String t : topics) {
                        c.subscribe(t, 1);
                    }
                    return c;
                } catch (MqttException e) {
                    close(c);
                    if (e.getReasonCode() != MqttException.REASON_CODE_CONNECTION_LOST || attempt == 3) {
                        throw e;
                    }
                    received.clear(); // the lost connection's notice
                    try {
                        Thread.sleep(50L * attempt);
                    } catch (InterruptedException i) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                }
            }
        }

        private MqttClient connectOnce() throws MqttException {
            MqttClient c = new MqttClient(uri, "rtbox-ctl-" + UUID.randomUUID(), new MemoryPersistence());
            c.setCallback(new MqttCallback() {
                @Override
                public void connectionLost(Throwable cause) {
                    received.add(new Received(null, null, "connection lost: " + cause));
                }

                @Override
                public void messageArrived(String topic, MqttMessage message) {
                    received.add(new Received(topic, message.getPayload(), null));
                }

                @Override
                public void deliveryComplete(IMqttDeliveryToken token) {
                }
            });
            String p = null;
            if (user != null && !user.isBlank()) {
                p = password;
                if ((p == null || p.isEmpty()) && passwordFile != null && !passwordFile.isBlank()) {
                    try {
                        p = Clients.passwordFile("--password-file", passwordFile);
                    } catch (java.io.IOException e) {
                        throw new MqttException(MqttException.REASON_CODE_FAILED_AUTHENTICATION,
                                new java.io.IOException("cannot read --password-file " + passwordFile + ": " + e, e));
                    }
                }
                p = p == null ? "" : p;
            }
            javax.net.SocketFactory sockets = null;
            if (uri.startsWith("ssl://")) {
                try {
                    sockets = ClientOptions.tls(Tls.context(ca, null, cert, certPassword));
                } catch (java.io.IOException | java.security.GeneralSecurityException e) {
                    throw new MqttException(MqttException.REASON_CODE_CLIENT_EXCEPTION,
                            new java.io.IOException("TLS options (--ca, --cert): " + e.getMessage(), e));
                }
            }
            // Paho's default keep-alive (60 s); a command's session is clean.
            MqttConnectOptions o = new ClientOptions(uri, user, p, sockets, 60, 10).v3();
            o.setCleanSession(true);
            c.connect(o);
            return c;
        }

        /** Connects and subscribes, or says on {@code err} why not and returns null (the command then exits 2). */
        MqttClient connectOrSay(PrintWriter err, String... topics) {
            try {
                return connect(topics);
            } catch (MqttException e) {
                err.println("rtbox ctl: cannot connect to " + uri + ": " + describe(e));
                return null;
            }
        }

        /** Paho's error with what to fix; a TLS refusal names --ca, the option that is at fault here. */
        private static String describe(MqttException e) {
            return Clients.describe(e).replace("a CA in tlsTrustStore", "a CA in --ca").replace("host in brokers",
                    "host in --broker");
        }

        static void close(MqttClient c) {
            try {
                if (c.isConnected()) {
                    c.disconnect(2000);
                }
                c.close();
            } catch (MqttException e) {
                // leaving anyway
            }
        }

        /** Sends a command; returns its request id. */
        static String send(MqttClient c, String appliance, String verb, JsonObject body) throws MqttException {
            rtbox.mqtt.protocol.Command command = new rtbox.mqtt.protocol.Command(appliance, verb, UUID.randomUUID().toString(), Instant.now().plusSeconds(60),
                    body);
            c.publish(Topics.of(command), Codec.encode(command), 1, false);
            return command.requestId();
        }
    }

    @Command(name = "list", description = "Lists appliances from their retained status.")
    static final class Ls implements Callable<Integer> {
        @Mixin
        Broker broker;
        @Spec
        CommandSpec spec;
        @Option(names = "--wait", paramLabel = "MS", description = "How long to collect statuses (default 1000 ms).")
        long waitMs = 1000;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            MqttClient c = broker.connectOrSay(err, Topics.ALL_STATUS);
            if (c == null) {
                return ERROR;
            }
            Map<String, Status> seen = new TreeMap<>();
            long end = System.currentTimeMillis() + waitMs;
            try {
                for (Broker.Received m; (m = broker.received.poll(Math.max(1, end - System.currentTimeMillis()),
                        TimeUnit.MILLISECONDS)) != null;) {
                    if (m.topic() != null && m.decode(err) instanceof Status s) {
                        seen.put(s.appliance(), s);
                    }
                }
            } finally {
                Broker.close(c);
            }
            if (seen.isEmpty()) {
                spec.commandLine().getErr().println("rtbox ctl: no appliance has a status on " + broker.uri);
                return ERROR;
            }
            out.printf(Locale.ROOT, "%-20s %-8s %-38s %-36s %s%n", "APPLIANCE", "STATE", "RUN", "VERSION", "PROBES");
            for (Status s : seen.values()) {
                out.printf(Locale.ROOT, "%-20s %-8s %-38s %-36s %s%n", s.appliance(), s.state(),
                        s.run() != null ? s.run() : "-", version(s),
                        s.probes() != null ? String.join(",", s.probes()) : "-");
            }
            out.flush();
            return OK;
        }
    }

    /**
     * The appliance's rtbox as its status gives it, without the leading "rtbox": {@code 0.1.0.202612030910
     * (git 5d51b53)}; "-" when offline (the last will carries none) or from an appliance older than the field.
     */
    static String version(Status s) {
        String v = s.rtboxVersion();
        if (v == null || v.isBlank()) {
            return "-";
        }
        return v.startsWith("rtbox ") ? v.substring("rtbox ".length()) : v;
    }

    @Command(name = "run", sortOptions = false,
            description = "Runs a probe on one or several appliances and waits for every result.")
    static final class Run implements Callable<Integer> {
        @Mixin
        Broker broker;
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "APPLIANCE[,APPLIANCE...]")
        String appliances;
        @Parameters(index = "1", paramLabel = "PROBE")
        String probe;
        @Option(names = {"-D", "--duration"}, paramLabel = "TIME", defaultValue = "10s", description = "Run time (default 10s).")
        String duration;
        @Option(names = {"-i", "--interval"}, paramLabel = "US") Long intervalUs;
        @Option(names = {"-p", "--priority"}) Integer priority;
        @Option(names = "--policy") String policy;
        @Option(names = {"-a", "--affinity"}, paramLabel = "CPUSET") String cpus;
        @Option(names = "--max-latency", paramLabel = "US") Long maxLatencyUs;
        @Option(names = "--max-p99", paramLabel = "US") Long maxP99Us;
        @Option(names = "--out", paramLabel = "DIR", description = "Write each result as DIR/APPLIANCE-RUN.json.")
        Path out;
        @Option(names = "--timeout", paramLabel = "S", description = "Give up this many seconds after the run"
                + " should have ended (default 120).")
        long timeoutS = 120;

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            // The one run-request shape (rtbox.core's RunRequests, docs/schema/run-request.schema.json),
            // checked here by the reader the appliance uses, so a bad value is refused before it is sent.
            JsonObject cmd = new JsonObject();
            cmd.addProperty("probe", probe);
            JsonObject params = new JsonObject();
            if (intervalUs != null) params.addProperty("interval_us", intervalUs);
            if (cpus != null) params.addProperty("cpus", cpus);
            cmd.add("parameters", params);
            String policyText = policy(policy, priority);
            if (policyText != null) cmd.addProperty("policy", policyText);
            cmd.addProperty("duration", duration);
            JsonObject thresholds = new JsonObject();
            if (maxLatencyUs != null) thresholds.addProperty(RunSchema.Threshold.MAX_LATENCY.key(), maxLatencyUs);
            if (maxP99Us != null) thresholds.addProperty(RunSchema.Threshold.MAX_P99.key(), maxP99Us);
            cmd.add("thresholds", thresholds);
            try {
                RunRequests.request(cmd, Set.of(), "ctl run", new ArrayList<>());
            } catch (rtbox.api.RtboxException e) {
                err.println("rtbox ctl: " + e.getMessage());
                return ERROR;
            }
            List<String> names = List.of(appliances.split(","));
            List<String> topics = new ArrayList<>();
            for (String a : names) {
                topics.add(Topics.replies(a));
                topics.add(Topics.runs(a));
            }
            MqttClient c = broker.connectOrSay(err, topics.toArray(String[]::new));
            if (c == null) {
                return ERROR;
            }
            Map<String, String> requests = new LinkedHashMap<>(); // request id -> appliance
            Map<String, String> runs = new LinkedHashMap<>(); // appliance -> run id
            Map<String, Verdict.Outcome> codes = new TreeMap<>();
            try {
                for (String a : names) {
                    requests.put(Broker.send(c, a, "run", cmd), a);
                }
                long durationMs = durationNs(duration) / 1_000_000;
                long replyEnd = System.currentTimeMillis() + 15_000;
                long end = System.currentTimeMillis() + durationMs + timeoutS * 1000;
                while (codes.size() < names.size()) {
                    long until = runs.size() + countErrors(codes) < names.size() ? replyEnd : end;
                    Broker.Received m = broker.received.poll(Math.max(1, until - System.currentTimeMillis()),
                            TimeUnit.MILLISECONDS);
                    if (m == null) {
                        break;
                    }
                    if (m.topic() == null) {
                        err.println("rtbox ctl: " + m.lost());
                        return ERROR;
                    }
                    Message msg = m.decode(err);
                    String a = msg == null ? null : msg.appliance();
                    if (msg instanceof Reply r && requests.containsKey(r.requestId())) {
                        if (r.ok() && r.body().has("run")) {
                            runs.put(a, r.body().get("run").getAsString());
                            o.println(a + ": started run " + runs.get(a));
                        } else {
                            err.println(a + ": " + r.code() + " " + r.message());
                            codes.put(a, Verdict.Outcome.ERROR);
                        }
                    } else if (msg instanceof Progress p && p.run().equals(runs.get(a))) {
                        o.println(a + ": " + p.percent() + "%");
                    } else if (msg instanceof Result r && r.run().equals(runs.get(a)) && !codes.containsKey(a)) {
                        o.println(a + ": " + r.verdict() + (r.figures() != null ? String.format(Locale.ROOT,
                                " max %s us, p99 %s us, %s samples", r.figures().maxUs(), r.figures().p99Us(),
                                r.figures().samples()) : "") + ": " + r.reason());
                        codes.put(a, CtlPlans.outcome(r.verdict()));
                        if (out != null) {
                            Files.createDirectories(out);
                            Files.write(out.resolve(a + "-" + runs.get(a) + ".json"), m.payload());
                        }
                    }
                    o.flush();
                }
            } finally {
                Broker.close(c);
            }
            for (String a : names) {
                if (!codes.containsKey(a)) {
                    err.println(a + ": " + (runs.containsKey(a) ? "no result in time" : "no reply (is it online?"
                            + " see rtbox ctl list)"));
                }
            }
            return CtlPlans.exitCode(names.stream().map(codes::get).toList());
        }

        private static int countErrors(Map<String, Verdict.Outcome> codes) {
            return (int) codes.values().stream().filter(v -> v == Verdict.Outcome.ERROR).count();
        }
    }

    @Command(name = "swap", description = "Installs a bundle on an appliance, or replaces one (--replace).")
    static final class Swap implements Callable<Integer> {
        @Mixin
        Broker broker;
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "APPLIANCE")
        String appliance;
        @Parameters(index = "1", paramLabel = "JAR")
        Path jar;
        @Option(names = "--replace", paramLabel = "BUNDLE", description = "Update this bundle (id or symbolic name)"
                + " with JAR instead of installing JAR beside it.")
        String replace;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(jar);
            } catch (java.io.IOException e) {
                err.println("rtbox ctl: cannot read " + jar + ": " + e.getMessage());
                return ERROR;
            }
            JsonObject cmd = new JsonObject();
            cmd.addProperty("data", Base64.getEncoder().encodeToString(bytes));
            cmd.addProperty("sha256", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
            if (replace != null) {
                cmd.addProperty("bundle", replace);
            }
            MqttClient c = broker.connectOrSay(err, Topics.replies(appliance));
            if (c == null) {
                return ERROR;
            }
            try {
                String id = Broker.send(c, appliance, replace == null ? "install" : "update", cmd);
                long end = System.currentTimeMillis() + 30_000;
                for (Broker.Received m; (m = broker.received.poll(Math.max(1, end - System.currentTimeMillis()),
                        TimeUnit.MILLISECONDS)) != null;) {
                    if (m.topic() != null && m.topic().equals(Topics.reply(appliance, id))
                            && m.decode(err) instanceof Reply r) {
                        (r.ok() ? spec.commandLine().getOut() : err).println(appliance + ": " + r.code() + " "
                                + r.message());
                        spec.commandLine().getOut().flush();
                        return r.ok() ? OK : ERROR;
                    }
                }
                err.println(appliance + ": no reply in 30 s (is it online? see rtbox ctl list)");
                return ERROR;
            } finally {
                Broker.close(c);
            }
        }
    }
}
