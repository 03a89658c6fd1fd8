package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MqttDefaultFilePersistence;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import rtbox.api.RtboxException;
import rtbox.api.result.RunReport;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Command;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.RunMessage;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;
import rtbox.plan.CellResult;
import rtbox.plan.PlanBusyException;
import rtbox.plan.PlanException;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/**
 * Over 400 lines, still: the link (connect, outbox, status, will), the command dispatcher
 * (envelope through rtbox.mqtt.protocol's Codec, request ids, expiry, replies) and the run,
 * plan, results and self-test verbs live here together. Issue 14 splits it into a link, a
 * dispatcher and one component per verb family on a whiteboard; not done yet.
 *
 * <p>The appliance on MQTT: keeps one connection to the site broker (its own reconnect,
 * not Paho's, whose timer and lock are static), publishes a retained status with a
 * matching last will, obeys commands under its own {@code down} tree and sends
 * replies, progress and results through the durable {@link Outbox}.
 *
 * <p>Threads: Paho's callbacks only hand work over. {@code rtbox-mqtt-io} owns the
 * client (connect, subscribe, publish); {@code rtbox-mqtt-cmd} checks and executes
 * commands; {@code rtbox-mqtt-run} runs the measurement. All three, and Paho's own,
 * end when the component deactivates.
 */
@Component(configurationPid = "rtbox.mqtt", configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = MqttConfig.class)
public class Appliance implements MqttCallbackExtended {
    static final String LOG = "rtbox mqtt: ";
    private static final int QOS = 1;

    @Reference
    Runner runner;
    @Reference
    Plans plans;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile ConfigurationAdmin configAdmin;

    private BundleContext context;
    private MqttConfig config;
    private String appliance;
    private Path dataDir;
    private Outbox outbox;
    private volatile MqttAsyncClient client;
    private MqttConnectOptions options;
    private ScheduledExecutorService io;
    private ScheduledExecutorService cmd;
    private ExecutorService runs;
    private volatile boolean connected;
    private volatile boolean closing;
    private long backoffMs = 500;
    private final long startedMs = System.currentTimeMillis();
    private BundleCommands bundles;
    private ConfigCommands configs;

    /** Replies already sent, by request id, on disk: a repeat gets the same reply again. Only the cmd thread uses it. */
    private Requests requests;

    /** The run under way (guarded by this), or null. */
    private RunSession active;

    /** False in a one-shot command (rtbox run, rtbox ctl ...): only the serving appliance connects. */
    private boolean serving;

    /** Where {@code plan} finds a plan by name. */
    private Path plansDir;

    /**
     * Set by a command that must send messages after its reply (a plan's progress, re-published
     * results): run by the cmd thread once the reply is queued. Only the cmd thread uses it.
     */
    private Runnable afterReply;

    @Activate
    void activate(BundleContext context, MqttConfig config) throws Exception {
        this.context = context;
        this.config = config;
        serving = serving(context);
        if (!serving) {
            // Same id, same session: a second connection would take the serving appliance's place.
            return;
        }
        this.appliance = config.appliance() == null ? "" : config.appliance().trim();
        String bad = Topics.checkId("appliance id", appliance);
        if (bad != null) {
            throw new IllegalArgumentException("rtbox.mqtt: " + bad);
        }
        if (config.brokers() == null || config.brokers().isBlank()) {
            throw new IllegalArgumentException("rtbox.mqtt: brokers is empty: give tcp://HOST:PORT or ssl://HOST:PORT");
        }
        dataDir = dataDir(context, config);
        plansDir = config.plansDir() != null && !config.plansDir().isBlank() ? Path.of(config.plansDir())
                : Path.of(System.getProperty("rtbox.home", "."), "plans");
        outbox = new Outbox(dataDir.resolve("outbox"), config.outboxMaxBytes());
        requests = new Requests(dataDir.resolve("requests.log"), config.rememberedRequests());
        if (!requests.damaged().isEmpty()) {
            System.err.println(LOG + dataDir.resolve("requests.log") + ": skipped damaged records ("
                    + String.join(", ", requests.damaged()) + "), a write cut short by a crash");
        }
        bundles = new BundleCommands(context, dataDir);
        configs = new ConfigCommands(() -> configAdmin);
        options = Connection.options(config, Topics.status(appliance), Codec.encode(status("offline")));
        client = newClient();
        io = Executors.newSingleThreadScheduledExecutor(named("rtbox-mqtt-io"));
        cmd = Executors.newSingleThreadScheduledExecutor(named("rtbox-mqtt-cmd"));
        runs = Executors.newSingleThreadExecutor(named("rtbox-mqtt-run"));
        cmd.execute(this::reportInterrupted);
        cmd.execute(this::answerInterruptedCommands);
        cmd.scheduleWithFixedDelay(this::progressTick, 500, 500, TimeUnit.MILLISECONDS);
        io.execute(this::connect);
    }

    @Deactivate
    void deactivate() {
        if (!serving) {
            return;
        }
        closing = true;
        RunSession s;
        synchronized (this) {
            s = active;
        }
        if (s != null) {
            if (s.plan()) {
                plans.stop();
            } else {
                runner.stop();
            }
        }
        runs.shutdown();
        cmd.shutdown();
        try {
            // A stopped run still writes its result into the outbox before the process goes.
            runs.awaitTermination(15, TimeUnit.SECONDS);
            cmd.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cmd.shutdownNow();
        runs.shutdownNow();
        try {
            io.submit(this::closeClient).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println(LOG + "closing the connection failed: " + e);
        }
        io.shutdownNow();
        try {
            io.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- connection (rtbox-mqtt-io) ----

    private void connect() {
        if (closing || connected) {
            return;
        }
        try {
            client.connect(options).waitForCompletion(config.connectTimeoutSeconds() * 1000L + 2000);
            client.subscribe(Topics.commands(appliance), QOS).waitForCompletion(10_000);
            connected = true;
            backoffMs = 500;
            System.err.println(LOG + "connected to " + client.getCurrentServerURI() + " as " + appliance);
            publishStatus();
            drain();
        } catch (MqttException e) {
            connected = false;
            System.err.println(LOG + "cannot connect to " + String.join(", ", options.getServerURIs()) + ": "
                    + Connection.describe(e) + "; trying again in " + backoffMs + " ms");
            try {
                client.disconnectForcibly(0, 1000, false);
            } catch (MqttException ignored) {
                // not connected after all
            }
            // A connect that timed out leaves Paho "connecting" for good (32110): start over with a new client.
            try {
                client.close(true);
            } catch (MqttException ignored) {
                // closed enough
            }
            try {
                client = newClient();
            } catch (MqttException ex) {
                System.err.println(LOG + "cannot create the MQTT client again: " + Connection.describe(ex));
            }
            io.schedule(this::connect, backoffMs, TimeUnit.MILLISECONDS);
            backoffMs = Math.min(backoffMs * 2, 30_000);
        }
    }

    /** A client of our own (Paho's callbacks call back into this component, tagged with their client). */
    private MqttAsyncClient newClient() throws MqttException {
        MqttAsyncClient c = new MqttAsyncClient(options.getServerURIs()[0], "rtbox-" + appliance,
                new MqttDefaultFilePersistence(dataDir.resolve("paho").toString()));
        c.setCallback(new MqttCallbackExtended() {
            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
                // connect() does the work once its token completes.
            }

            @Override
            public void connectionLost(Throwable cause) {
                if (!closing) {
                    io.execute(() -> {
                        if (client == c) {
                            connected = false;
                            System.err.println(LOG + "connection lost: " + cause + "; reconnecting");
                            connect();
                        }
                    });
                }
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                Appliance.this.messageArrived(topic, message);
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        });
        return c;
    }

    @Override
    public void connectComplete(boolean reconnect, String serverURI) {
    }

    @Override
    public void connectionLost(Throwable cause) {
    }

    @Override
    public void messageArrived(String topic, MqttMessage message) {
        // Paho's thread: never call the client from here (it can deadlock); hand over.
        byte[] payload = message.getPayload();
        boolean retained = message.isRetained();
        if (!closing) {
            cmd.execute(() -> command(topic, payload, retained));
        }
    }

    @Override
    public void deliveryComplete(IMqttDeliveryToken token) {
        // drain() waits for each acknowledgement itself.
    }

    /** Publishes the outbox oldest first, one message acknowledged at a time. */
    private void drain() {
        while (connected && !Thread.currentThread().isInterrupted()) {
            Outbox.Entry e;
            try {
                e = outbox.first();
            } catch (IOException ex) {
                System.err.println(LOG + "outbox: " + ex.getMessage() + "; setting it aside");
                try {
                    outbox.quarantine(outbox.ids().get(0));
                } catch (IOException | IndexOutOfBoundsException ex2) {
                    return;
                }
                continue;
            }
            if (e == null) {
                return;
            }
            try {
                client.publish(e.topic(), e.payload(), QOS, false).waitForCompletion(30_000);
            } catch (MqttException ex) {
                // Lost connection: connectionLost reconnects and drains again. A timeout: try again soon.
                if (client.isConnected()) {
                    io.schedule(this::drain, 1, TimeUnit.SECONDS);
                }
                return;
            }
            try {
                outbox.remove(e.id());
            } catch (IOException ex) {
                System.err.println(LOG + "outbox: cannot remove a delivered message: " + ex.getMessage());
                return;
            }
        }
    }

    private void publishStatus() {
        if (!connected) {
            return;
        }
        try {
            client.publish(Topics.status(appliance), Codec.encode(status("online")), QOS, true);
        } catch (MqttException e) {
            System.err.println(LOG + "cannot publish the status: " + Connection.describe(e));
        }
    }

    private void closeClient() {
        try {
            if (client.isConnected()) {
                drain();
                client.publish(Topics.status(appliance), Codec.encode(status("offline")), QOS, true)
                        .waitForCompletion(5000);
                client.disconnect(5000).waitForCompletion(6000);
            }
        } catch (MqttException e) {
            try {
                client.disconnectForcibly(0, 1000, false);
            } catch (MqttException ignored) {
                // already gone
            }
        }
        connected = false;
        try {
            client.close(true);
        } catch (MqttException e) {
            System.err.println(LOG + "closing the client: " + Connection.describe(e));
        }
    }

    private void statusChanged() {
        if (!closing) {
            io.execute(this::publishStatus);
        }
    }

    Status status(String state) {
        Instant since = Instant.ofEpochMilli(startedMs);
        if (!Status.ONLINE.equals(state)) {
            return Status.offline(appliance, Instant.now(), since);
        }
        RunSession s;
        synchronized (this) {
            s = active;
        }
        boolean running = s != null && s.id != null;
        boolean plan = running && s.plan();
        return new Status(appliance, Instant.now(), state, since, s != null, running ? s.id : null,
                running && !plan ? s.probe : null, plan ? s.probe : null, plan ? s.cell + 1 : null,
                plan ? s.cells : null, plan ? Math.round(s.fraction * 100) : null,
                java.util.List.copyOf(new java.util.TreeSet<>(runner.probes())),
                java.util.List.copyOf(new java.util.TreeSet<>(runner.workloads())), (long) outbox.size(),
                outbox.bytes(), rtbox.core.Build.describe());
    }

    // ---- commands (rtbox-mqtt-cmd) ----

    private void command(String topic, byte[] payload, boolean retained) {
        String verb = topic.substring(topic.lastIndexOf('/') + 1);
        if (retained) {
            System.err.println(LOG + "ignored a retained command on " + topic
                    + ": commands must not be retained (clear it with an empty retained message)");
            return;
        }
        Command command = null;
        ProtocolException bad = null;
        try {
            command = Codec.decodeCommand(topic, payload);
        } catch (ProtocolException e) {
            bad = e;
        }
        String requestId = command != null ? command.requestId() : bad.requestId();
        if (requestId == null) {
            reply(null, verb, Reply.bad(bad.getMessage()));
            return;
        }
        byte[] earlier = requests.reply(requestId);
        if (earlier != null) {
            // A repeat (the broker delivered it twice, or the sender tried again): answer, do not execute.
            try {
                outbox.add(Topics.reply(appliance, requestId), earlier);
            } catch (IOException e) {
                System.err.println(LOG + "outbox: " + e.getMessage());
            }
            io.execute(this::drain);
            return;
        }
        Reply r;
        try {
            r = bad != null ? Reply.bad(bad.getMessage()) : expired(command);
            if (r == null) {
                try {
                    requests.begin(requestId, verb);
                } catch (IOException e) {
                    // Without the record a repeat after a crash could run it twice: do not run it at all.
                    r = Reply.failed("cannot record request " + requestId + " in " + dataDir.resolve("requests.log")
                            + " (" + e.getMessage() + "): not run, since a repeat could not be recognised");
                }
            }
            if (r == null) {
                r = execute(verb, command.body(), requestId);
            }
        } catch (RtboxException e) {
            r = Reply.bad(e.getMessage());
        } catch (RuntimeException e) {
            r = Reply.failed(verb + " failed on the appliance: " + e);
        }
        reply(requestId, verb, r);
        Runnable after = afterReply;
        afterReply = null;
        if (after != null) {
            after.run();
        }
    }

    /** Null while the command may still run, else the error reply. */
    private static Reply expired(Command c) {
        Instant now = Instant.now();
        if (c.expiredAt(now)) {
            return Reply.bad("the command expired at " + c.expires() + " (the appliance's clock says " + now
                    + "): not run");
        }
        return null;
    }

    private static final String VERBS = "run, plan, results, stop, status, selftest, bundles, install, update,"
            + " uninstall, get-config, set-config";

    private Reply execute(String verb, JsonObject c, String requestId) throws RtboxException {
        switch (verb) {
            case "run": return run(c, requestId);
            case "plan": return plan(c, requestId);
            case "results": return results(c);
            case "stop": return stop(c);
            case "status": return Reply.ok("online", Codec.toJson(status("online")));
            case "selftest": return selftest();
            case "bundles": return bundles.list();
            case "install": return bundles.install(c);
            case "update": return bundles.update(c);
            case "uninstall": return bundles.uninstall(c);
            case "get-config": return configs.get(c);
            case "set-config": return configs.set(c);
            default:
                return Reply.notFound("unknown verb '" + verb + "': known are " + VERBS);
        }
    }

    private void reply(String requestId, String verb, Reply r) {
        byte[] bytes = Codec.encode(new rtbox.mqtt.protocol.Reply(appliance, Instant.now(), requestId, verb, r.code(),
                r.message(), r.body()));
        if (r.code() != 200) {
            System.err.println(LOG + verb + " " + (requestId == null ? "" : requestId + " ") + r.code() + ": "
                    + r.message());
        }
        if (requestId != null) {
            try {
                requests.answer(requestId, bytes);
            } catch (IOException e) {
                System.err.println(LOG + "cannot record the reply to " + requestId + " in "
                        + dataDir.resolve("requests.log") + ": " + e.getMessage()
                        + "; a repeat after a restart would not be recognised");
            }
        }
        try {
            outbox.add(Topics.reply(appliance, requestId), bytes);
        } catch (IOException e) {
            System.err.println(LOG + "outbox: cannot queue a reply: " + e.getMessage());
        }
        if (!closing) {
            io.execute(this::drain);
        }
    }

    // ---- runs ----

    /** 409 while a run or plan is under way, or while the outbox is full; null when a new one may start. */
    private Reply refuseNew(String what) {
        RunSession s;
        synchronized (this) {
            s = active;
        }
        if (s != null) {
            return Reply.conflict(busy(s));
        }
        if (outbox.full()) {
            return Reply.conflict("the outbox holds " + outbox.bytes() + " bytes of undelivered messages (limit "
                    + outbox.maxBytes() + "): no new " + what + " until they are delivered");
        }
        return null;
    }

    private Reply run(JsonObject c, String requestId) throws RtboxException {
        Reply refused = refuseNew("run");
        if (refused != null) {
            return refused;
        }
        String runId = RunJson.string(c, "run", null);
        if (runId != null) {
            String bad = Topics.checkId("run", runId);
            if (bad != null) {
                return Reply.bad(bad);
            }
        } else {
            runId = UUID.randomUUID().toString();
        }
        RunRequest request = RunJson.parse(c, "mqtt run " + requestId);
        if (!runner.probes().contains(request.probe())) {
            return Reply.notFound("no probe '" + request.probe() + "' on " + appliance + ": there are "
                    + String.join(", ", new java.util.TreeSet<>(runner.probes())));
        }
        runner.check(request);
        RunSession session = new RunSession(runId, request.probe(), dataDir.resolve("run.active"));
        try {
            session.persist();
        } catch (IOException e) {
            return Reply.failed("cannot record the run in " + dataDir + ": " + e.getMessage());
        }
        synchronized (this) {
            active = session;
        }
        String id = runId;
        runs.execute(() -> measure(session, request));
        statusChanged();
        JsonObject body = new JsonObject();
        body.addProperty("run", id);
        body.addProperty("progress", Topics.progress(appliance, id));
        body.addProperty("result", Topics.result(appliance, id));
        return Reply.ok("run " + id + " started: " + request.probe() + " " + request.parameters(), body);
    }

    private void measure(RunSession s, RunRequest request) {
        sendProgress(s, 0);
        String topic = Topics.result(appliance, s.id);
        try {
            RunReport report = runner.run(request, f -> s.fraction = f);
            sendRun(s, topic, seq -> Payloads.result(appliance, s.id, seq, report));
        } catch (RtboxException e) {
            sendRun(s, topic, seq -> Payloads.failedResult(appliance, s.id, seq, s.probe, Outcome.ERROR, e.getMessage()));
        } catch (RuntimeException e) {
            sendRun(s, topic, seq -> Payloads.failedResult(appliance, s.id, seq, s.probe, Outcome.ERROR,
                    "the run failed on the appliance: " + e));
        }
        s.finished();
        synchronized (this) {
            active = null;
        }
        statusChanged();
    }

    /**
     * Queues the run's next message: numbered one past the last queued, and the number
     * recorded before the io thread can publish it, so numbers never repeat or skip.
     */
    private void sendRun(RunSession s, String topic, java.util.function.LongFunction<RunMessage> message) {
        synchronized (s) {
            long seq = s.sequence() + 1;
            sendAt(s, topic, seq, message.apply(seq));
        }
    }

    private void progressTick() {
        RunSession s;
        synchronized (this) {
            s = active;
        }
        if (s != null && s.plan()) {
            // A plan's numbered messages are one per cell (PlanMessages); within a cell the
            // retained status shows how far it is.
            int step = s.cell * 10 + (int) Math.floor(s.fraction * 10);
            if (s.id != null && step > s.lastStep) {
                s.lastStep = step;
                statusChanged();
            }
        } else if (s != null) {
            int step = (int) Math.floor(s.fraction * 10);
            if (step > s.lastStep && step < 10) {
                sendProgress(s, step);
            }
        }
    }

    private void sendProgress(RunSession s, int step) {
        synchronized (s) {
            if (step <= s.lastStep || s.done) {
                return;
            }
            s.lastStep = step;
            sendRun(s, Topics.progress(appliance, s.id),
                    seq -> Payloads.progress(appliance, s.id, seq, s.probe, step / 10.0));
        }
    }

    private Reply stop(JsonObject c) throws RtboxException {
        RunSession s;
        synchronized (this) {
            s = active;
        }
        String want = RunJson.string(c, "run", null);
        if (s == null) {
            return Reply.conflict("no run is under way");
        }
        if (want != null && !want.equals(s.id)) {
            return Reply.notFound("run " + want + " is not under way: run " + s.id + " is");
        }
        JsonObject body = new JsonObject();
        body.addProperty("run", s.id);
        if (s.plan()) {
            plans.stop();
            return Reply.ok("stopping plan " + s.probe + " (run " + s.id + "): the cell under way ends early and"
                    + " its result follows, then the plan's result; no further cell starts", body);
        }
        runner.stop();
        return Reply.ok("stopping run " + s.id + ": its result follows, marked incomplete", body);
    }

    /**
     * Commands the appliance was executing when it died have no reply: their outcome is
     * unknown, so each is answered (now, and to any repeat) with 500 saying so, and
     * never executed again.
     */
    private void answerInterruptedCommands() {
        requests.interrupted().forEach((id, verb) -> reply(id, verb, Reply.failed("the appliance restarted while it"
                + " executed this " + verb + " command (crash or power loss): whether it took effect is unknown; check"
                + " (status, bundles, get-config, results) and send it again with a new requestId if needed")));
    }

    /** A run that a crash or power loss cut short is reported as aborted, with the next sequence number. */
    private void reportInterrupted() {
        RunSession s = RunSession.load(dataDir.resolve("run.active"));
        if (s == null) {
            return;
        }
        long last = s.sequence();
        try {
            for (Outbox.Entry e : outbox.all()) {
                JsonObject o = JsonParser.parseString(new String(e.payload(), StandardCharsets.UTF_8))
                        .getAsJsonObject();
                if (o.has("run") && s.id.equals(o.get("run").getAsString()) && o.has("sequence")) {
                    last = Math.max(last, o.get("sequence").getAsLong());
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println(LOG + "outbox: cannot read it back for run " + s.id + ": " + e);
        }
        RunSession r = s.after(last);
        if (r.plan()) {
            resumePlan(r);
            return;
        }
        System.err.println(LOG + "run " + r.id + " was interrupted by a restart: reporting it as aborted");
        sendRun(r, Topics.result(appliance, r.id), seq -> Payloads.failedResult(appliance, r.id, seq, r.probe,
                Outcome.ABORTED, "the appliance restarted during the run (crash or power loss): no result was measured"));
        r.finished();
    }

    // ---- plans ----

    private static String busy(RunSession s) {
        return (s.plan() ? "plan " + s.probe + " (run " + s.id + ")" : "run " + s.id + " (" + s.probe + ")")
                + " is under way: one run at a time; stop it first";
    }

    /**
     * Checks the plan here (400 with the plan's own paths), then runs it on the run
     * thread and answers with the run id once the plan's start is in the journal. Its
     * messages (PlanMessages) follow the reply: the run thread waits for it.
     */
    private Reply plan(JsonObject c, String requestId) throws RtboxException {
        Reply refused = refuseNew("plan");
        if (refused != null) {
            return refused;
        }
        boolean inline = c.has("plan") && !c.get("plan").isJsonNull();
        String name = RunJson.string(c, "name", null);
        if (inline == (name != null)) {
            return Reply.bad("give the plan either inline (\"plan\": {the plan, as in plans/README.md}) or by name"
                    + " (\"name\": \"quick\", a file in " + plansDir + "), not " + (inline ? "both" : "neither"));
        }
        // The plan's text, read once: Plans checks and runs it as text, and the journal keeps it.
        String origin;
        String text;
        String label;
        if (inline) {
            if (!c.get("plan").isJsonObject()) {
                return Reply.bad("plan must be the plan itself, a JSON object (plans/README.md), not "
                        + shorten(c.get("plan").toString()));
            }
            text = Payloads.GSON.toJson(c.get("plan"));
            // One word, as a file name would be: reports put the user's own file in its place.
            origin = "mqtt:" + requestId;
            label = "the plan";
        } else {
            String n = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
            String bad = Topics.checkId("name", n);
            if (bad != null) {
                return Reply.bad(bad + " (the name of a plan file in " + plansDir + ", with or without .json)");
            }
            Path file = plansDir.resolve(n + ".json");
            if (!Files.isRegularFile(file)) {
                return Reply.notFound("no plan '" + n + "' in " + plansDir + ": there are " + planNames());
            }
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return Reply.failed("cannot read " + file + ": " + e.getMessage());
            }
            origin = file.toAbsolutePath().toString();
            label = "plan '" + n + "'";
        }
        String planName;
        try {
            plans.check(origin, text);
            planName = JsonParser.parseString(text).getAsJsonObject().get("name").getAsString();
        } catch (PlanException e) {
            JsonObject body = new JsonObject();
            body.add("problems", Payloads.GSON.toJsonTree(e.problems()));
            return new Reply(400, label + " has " + e.problems().size() + (e.problems().size() == 1 ? " problem"
                    : " problems") + "; nothing was run: " + String.join("; ", e.problems()), body);
        } catch (RuntimeException e) {
            return Reply.failed("cannot read the name of " + label + ": " + e);
        }
        java.util.concurrent.CompletableFuture<RunSession> started = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CountDownLatch replied = new java.util.concurrent.CountDownLatch(1);
        Plans.Listener listener = new Plans.Listener() {
            private RunSession session;

            @Override
            public void planStarted(String runId, java.util.List<String> cellNames) {
                RunSession n = new RunSession(runId, planName, RunSession.PLAN, dataDir.resolve("run.active"));
                n.cells = cellNames.size();
                try {
                    n.persist();
                } catch (IOException e) {
                    System.err.println(LOG + "cannot record plan run " + runId + ": " + e.getMessage()
                            + "; a restart during it would not report it");
                }
                session = n;
                synchronized (Appliance.this) {
                    active = n;
                }
                started.complete(n);
                try {
                    // The reply (with the run id) goes first, so that a reader knows the run when its messages come.
                    replied.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void cellStarted(int index, int count, String cellName) {
                session.cell = index;
                session.fraction = 0;
                sendAt(session, Topics.progress(appliance, session.id), PlanMessages.progressSeq(index),
                        PlanMessages.progress(appliance, session.id, planName, index, count, cellName));
                statusChanged();
            }

            @Override
            public void progress(int index, int count, double fraction) {
                session.fraction = fraction;
            }

            @Override
            public void cellFinished(CellResult cell, int count) {
                sendAt(session, Topics.cell(appliance, session.id), PlanMessages.cellSeq(cell.index()),
                        PlanMessages.cell(appliance, session.id, planName, cell, count));
            }
        };
        synchronized (this) {
            // Keeps a second run or plan out while this one starts.
            active = new RunSession(null, planName, RunSession.PLAN, dataDir.resolve("run.active"));
        }
        runs.execute(() -> runPlan(origin, text, planName, listener, started));
        RunSession session;
        try {
            session = started.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable t = e.getCause();
            String msg = t instanceof RtboxException ? t.getMessage() : String.valueOf(t);
            // A second plan (one started on the appliance itself, say) is refused with its own type.
            return t instanceof PlanBusyException ? Reply.conflict(msg)
                    : t instanceof PlanException ? Reply.bad(msg) : Reply.failed("the plan did not start: " + msg);
        } catch (java.util.concurrent.TimeoutException e) {
            replied.countDown();
            return Reply.failed("the plan did not start within 60 s; see the appliance's log");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            replied.countDown();
            return Reply.failed("interrupted while the plan started");
        }
        afterReply = replied::countDown;
        JsonObject body = new JsonObject();
        body.addProperty("run", session.id);
        body.addProperty("plan", planName);
        body.addProperty("cells", session.cells);
        body.addProperty("progress", Topics.progress(appliance, session.id));
        body.addProperty("cell", Topics.cell(appliance, session.id));
        body.addProperty("result", Topics.result(appliance, session.id));
        body.addProperty("result_sequence", PlanMessages.resultSeq(session.cells));
        return Reply.ok("plan " + planName + " started as run " + session.id + ": " + session.cells
                + (session.cells == 1 ? " cell" : " cells"), body);
    }

    /** The run thread: the plan, then its result; the cells' messages go from the listener. */
    private void runPlan(String origin, String text, String planName, Plans.Listener listener,
            java.util.concurrent.CompletableFuture<RunSession> started) {
        PlanRun result = null;
        String error = null;
        try {
            result = plans.run(origin, text, listener);
        } catch (RtboxException e) {
            error = e.getMessage();
            started.completeExceptionally(e);
        } catch (RuntimeException e) {
            error = "the plan failed on the appliance: " + e;
            started.completeExceptionally(e);
        }
        RunSession s = started.isCompletedExceptionally() ? null : started.getNow(null);
        if (s != null) {
            if (result != null) {
                sendAt(s, Topics.result(appliance, s.id), PlanMessages.resultSeq(result.cellsPlanned()),
                        PlanMessages.result(appliance, result));
            } else {
                sendAt(s, Topics.result(appliance, s.id), PlanMessages.resultSeq(s.cells),
                        PlanMessages.failed(appliance, s.id, PlanMessages.resultSeq(s.cells), planName, s.cells,
                                Outcome.ERROR, error));
            }
            s.finished();
        }
        synchronized (this) {
            active = null;
        }
        statusChanged();
    }

    private String planNames() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        try (java.util.stream.Stream<Path> files = Files.list(plansDir)) {
            files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".json"))
                    .forEach(f -> names.add(f.substring(0, f.length() - 5)));
        } catch (IOException e) {
            return "none (" + plansDir + " cannot be read: " + e.getMessage() + ")";
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** Queues one of a plan's messages under its fixed sequence number, recorded before it can be published. */
    private void sendAt(RunSession s, String topic, long seq, RunMessage message) {
        synchronized (s) {
            try {
                outbox.add(topic, Codec.encode(message), () -> s.queued(seq));
            } catch (IOException e) {
                System.err.println(LOG + "outbox: cannot queue message " + seq + " of run " + s.id + ": "
                        + e.getMessage());
                return;
            }
        }
        if (!closing) {
            io.execute(this::drain);
        }
    }

    /**
     * A plan that a crash or power loss cut short: its cells that reached the journal but
     * not the outbox are queued, then its result (ABORTED, unless the journal shows the
     * plan ended), all with the numbers they would have had.
     */
    private void resumePlan(RunSession r) {
        long last = r.sequence();
        PlanRun run = null;
        try {
            for (PlanRun p : plans.history().runs()) {
                if (p.id().equals(r.id)) {
                    run = p;
                }
            }
        } catch (RtboxException e) {
            System.err.println(LOG + "cannot read the result journal: " + e.getMessage());
        }
        if (run == null) {
            System.err.println(LOG + "plan run " + r.id + " was interrupted by a restart and is not in the journal:"
                    + " reporting it as aborted");
            sendAt(r, Topics.result(appliance, r.id), last + 1, PlanMessages.failed(appliance, r.id, last + 1, r.probe,
                    r.cells, Outcome.ABORTED, "the appliance restarted during the plan (crash or power loss) and its"
                            + " journal has no record of it"));
        } else {
            System.err.println(LOG + "plan run " + r.id + " (" + run.plan() + ") was interrupted by a restart after "
                    + run.cells().size() + " of " + run.cellsPlanned() + " cells: delivering what the journal has");
            for (CellResult c : run.cells()) {
                if (PlanMessages.cellSeq(c.index()) > last) {
                    sendAt(r, Topics.cell(appliance, r.id), PlanMessages.cellSeq(c.index()),
                            PlanMessages.cell(appliance, r.id, run.plan(), c, run.cellsPlanned()));
                }
            }
            if (PlanMessages.resultSeq(run.cellsPlanned()) > last) {
                sendAt(r, Topics.result(appliance, r.id), PlanMessages.resultSeq(run.cellsPlanned()),
                        PlanMessages.result(appliance, run));
            }
        }
        r.finished();
    }

    /**
     * Without {@code run}: the runs in the journal (the last {@code limit}, 20 by default).
     * With {@code run} (an id, or {@code last}): its cell results and its result are
     * published again after the reply, numbered as they were first, so a reader that has
     * them drops them by (run, sequence).
     */
    private Reply results(JsonObject c) throws RtboxException {
        Plans.History h = plans.history();
        RunSession s;
        synchronized (this) {
            s = active;
        }
        String running = s == null ? null : s.id;
        String want = RunJson.string(c, "run", null);
        if (want == null) {
            int limit = 20;
            if (c.has("limit")) {
                try {
                    limit = c.get("limit").getAsInt();
                } catch (RuntimeException e) {
                    limit = -1;
                }
                if (limit < 1 || limit > 100) {
                    return Reply.bad("limit " + c.get("limit") + " is not a number from 1 to 100");
                }
            }
            java.util.List<PlanRun> all = h.runs();
            com.google.gson.JsonArray list = new com.google.gson.JsonArray();
            for (PlanRun r : all.subList(Math.max(0, all.size() - limit), all.size())) {
                JsonObject o = PlanMessages.summary(r);
                if (r.id().equals(running)) {
                    o.addProperty("state", "running");
                    o.remove("verdict");
                }
                list.add(o);
            }
            JsonObject body = new JsonObject();
            body.add("runs", list);
            body.addProperty("total", all.size());
            body.addProperty("journal", h.journal());
            body.add("damaged", Payloads.GSON.toJsonTree(h.damaged()));
            return Reply.ok(list.size() + " of " + all.size() + " runs in the journal, oldest first"
                    + (h.damaged().isEmpty() ? "" : "; " + h.damaged().size() + " damaged records skipped"), body);
        }
        PlanRun run = null;
        for (PlanRun r : h.runs()) {
            if ("last".equals(want) ? !r.id().equals(running) : r.id().equals(want)) {
                run = r;
            }
        }
        if (run == null) {
            String bad = Topics.checkId("run", want);
            if (bad != null) {
                return Reply.bad(bad);
            }
            return Reply.notFound("no run '" + want + "' in the journal " + h.journal() + " ("
                    + h.runs().size() + " runs; list them with results and no run)");
        }
        if (run.id().equals(running)) {
            return Reply.conflict("run " + run.id() + " is under way: its results come as its cells end");
        }
        java.util.List<RunMessage> messages = PlanMessages.replay(appliance, run);
        afterReply = () -> {
            for (RunMessage m : messages) {
                try {
                    outbox.add(Topics.of(m), Codec.encode(m));
                } catch (IOException e) {
                    System.err.println(LOG + "outbox: cannot queue a message for " + Topics.of(m) + ": "
                            + e.getMessage());
                }
            }
            if (!closing) {
                io.execute(this::drain);
            }
        };
        JsonObject body = PlanMessages.summary(run);
        body.addProperty("messages", messages.size());
        body.addProperty("cell", Topics.cell(appliance, run.id()));
        body.addProperty("result", Topics.result(appliance, run.id()));
        body.addProperty("result_sequence", PlanMessages.resultSeq(run.cellsPlanned()));
        return Reply.ok("publishing run " + run.id() + " again: " + run.cells().size() + " cell results and the"
                + " plan's result, numbered as when first sent (drop repeats by run and sequence)", body);
    }

    private Reply selftest() {
        JsonObject body = new JsonObject();
        TreeMap<String, String> problems = new TreeMap<>();
        if (runner.probes().isEmpty()) {
            problems.put("probes", "no probe is registered");
        }
        try {
            long free = Files.getFileStore(dataDir).getUsableSpace();
            body.addProperty("data_free_bytes", free);
            if (free < outbox.maxBytes()) {
                problems.put("disk", dataDir + " has " + free + " bytes free, less than the outbox limit "
                        + outbox.maxBytes());
            }
        } catch (IOException e) {
            problems.put("disk", "cannot read the free space of " + dataDir + ": " + e.getMessage());
        }
        body.addProperty("outbox_messages", outbox.size());
        body.addProperty("outbox_bytes", outbox.bytes());
        body.add("probes", Payloads.GSON.toJsonTree(new java.util.TreeSet<>(runner.probes())));
        body.add("problems", Payloads.GSON.toJsonTree(problems));
        return problems.isEmpty() ? Reply.ok("self test passed", body)
                : new Reply(500, "self test failed: " + String.join("; ", problems.values()), body);
    }

    // ---- helpers ----

    /**
     * True when this process is the appliance ({@code rtbox serve}), or when the
     * launcher gives no arguments at all (an embedded framework).
     */
    static boolean serving(BundleContext context) {
        try {
            for (org.osgi.framework.ServiceReference<?> ref : context.getServiceReferences((String) null,
                    "(launcher.arguments=*)")) {
                Object a = ref.getProperty("launcher.arguments");
                if (a instanceof String[]) {
                    String[] args = (String[]) a;
                    return args.length > 0 && "serve".equals(args[0]);
                }
            }
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        return true;
    }

    static Path dataDir(BundleContext context, MqttConfig config) throws IOException {
        Path dir;
        if (config.dataDir() != null && !config.dataDir().isBlank()) {
            dir = Path.of(config.dataDir());
        } else {
            String storage = context.getProperty("launch.storage.dir");
            dir = storage != null ? Path.of(storage).toAbsolutePath().getParent().resolve("mqtt")
                    : context.getDataFile("mqtt").toPath();
        }
        Files.createDirectories(dir);
        return dir;
    }

    private static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
