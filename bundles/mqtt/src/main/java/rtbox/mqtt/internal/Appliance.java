package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;

import rtbox.core.Runner;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Topics;

/**
 * The appliance on MQTT, wiring only: the {@link Link} to the broker, the
 * {@link Dispatcher} of commands, and the verb families ({@link Verbs}) found on a
 * whiteboard, all sharing one {@link Station}. A family comes and goes with its
 * component: without rtbox.plan the plan verbs are absent and the rest answers.
 *
 * <p>Threads: {@code rtbox-mqtt-io} (the Link's) owns the client; {@code rtbox-mqtt-cmd}
 * checks and executes commands, recovers what a crash cut short and samples progress;
 * {@code rtbox-mqtt-run} measures. All of them, and Paho's own, end when the component
 * deactivates.
 */
@Component(configurationPid = "rtbox.mqtt", configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = MqttConfig.class)
public class Appliance {
    /** The bundle's one log, named as the bundle: the runtime shows rtbox.* from INFO. */
    static final Logger LOG = LoggerFactory.getLogger("rtbox.mqtt");

    @Reference
    Runner runner;

    /** To put the previous settings back when new ones set remotely do not connect (ConfigTrial). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile org.osgi.service.cm.ConfigurationAdmin configAdmin;

    private final List<Verbs> families = new CopyOnWriteArrayList<>();
    private volatile Dispatcher dispatcher;
    private volatile Station station;
    private volatile ScheduledExecutorService cmd;
    private Link link;

    @Reference(service = Verbs.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addVerbs(Verbs family) {
        families.add(family);
        Dispatcher d = dispatcher;
        ScheduledExecutorService c = cmd;
        if (d != null && c != null) {
            c.execute(() -> {
                d.add(family);
                family.recover(station);
            });
        }
    }

    void removeVerbs(Verbs family) {
        families.remove(family);
        Dispatcher d = dispatcher;
        if (d != null) {
            d.remove(family);
        }
    }

    @Activate
    void activate(BundleContext context, MqttConfig config) throws Exception {
        if (!serving(context)) {
            // Same id, same session: a second connection would take the serving appliance's place.
            return;
        }
        String appliance = config.appliance() == null ? "" : config.appliance().trim();
        String bad = Topics.checkId("appliance id", appliance);
        if (bad != null) {
            throw new IllegalArgumentException("rtbox.mqtt: " + bad);
        }
        if (config.brokers() == null || config.brokers().isBlank()) {
            throw new IllegalArgumentException("rtbox.mqtt: brokers is empty: give tcp://HOST:PORT or ssl://HOST:PORT");
        }
        Path dataDir = dataDir(context, config);
        Path plansDir = config.plansDir() != null && !config.plansDir().isBlank() ? Path.of(config.plansDir())
                : Path.of(System.getProperty("rtbox.home", "."), "plans");
        Outbox outbox = new Outbox(dataDir.resolve("outbox"), config.outboxMaxBytes());
        Requests requests = new Requests(dataDir.resolve("requests.log"), config.rememberedRequests(),
                config.rememberedRequestBytes());
        if (!requests.damaged().isEmpty()) {
            LOG.warn("{}: skipped damaged records ({}), a write cut short by a crash", requests.file(),
                    String.join(", ", requests.damaged()));
        }
        ExecutorService runs = Executors.newSingleThreadExecutor(named("rtbox-mqtt-run"));
        Station s = new Station(appliance, config, dataDir, plansDir, outbox, runs, runner);
        s.trialDir(defaultDataDir(context));
        if (!outbox.damaged().isEmpty()) {
            LOG.warn("damage found at start, carried by the status until the files are looked at: {}",
                    String.join("; ", outbox.damaged()));
        }
        if (!requests.damaged().isEmpty()) {
            s.damaged("requests", requests.damaged().stream().map(d -> requests.file().getFileName() + " " + d)
                    .toList());
        }
        Dispatcher d = new Dispatcher(s, requests);
        s.verbs(d::verbs);
        ScheduledExecutorService c = Executors.newSingleThreadScheduledExecutor(named("rtbox-mqtt-cmd"));
        s.answerer((id, verb, reply) -> {
            try {
                c.execute(() -> d.answer(id, verb, reply.get()));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.warn("{} {}: not answered, the MQTT side is stopping", verb, id);
            }
        });
        int limit = config.maxCommandBytes();
        link = new Link(config, appliance, dataDir, outbox, state -> Codec.encode(s.status(state)), new Link.Sink() {
            @Override
            public void command(String topic, byte[] payload, boolean retained) {
                c.execute(() -> d.command(topic, payload, retained));
            }

            @Override
            public void oversized(String topic, int size, byte[] head, boolean retained) {
                c.execute(() -> d.oversized(topic, size, limit, head, retained));
            }
        });
        s.connect(link);
        // Here, not on the cmd thread: before the link starts, which may send the interrupted run's
        // messages, whose numbers only the outbox holds (RunSession).
        s.loadInterrupted();
        // From here on addVerbs adds a family on the cmd thread; one bound meanwhile may be
        // added twice, which is harmless (the interrupted run is taken once).
        station = s;
        cmd = c;
        dispatcher = d;
        c.execute(() -> {
            for (Verbs f : families) {
                d.add(f);
                f.recover(s);
            }
        });
        // The trial lives where a set-config cannot move it (a new dataDir lost it before).
        Path trialDir = s.trialDir();
        ConfigTrial trial = ConfigTrial.read(trialDir);
        c.execute(() -> d.answerInterruptedCommands(trial == null ? null : trial.requestId));
        if (trial != null) {
            judge(trial, trialDir, d, c, link);
        }
        c.scheduleWithFixedDelay(s.activity()::tick, 500, 500, TimeUnit.MILLISECONDS);
        int liveMs = config.liveIntervalMillis();
        if (liveMs > 0) {
            LiveFeed feed = new LiveFeed(s);
            Link liveLink = link;
            c.scheduleAtFixedRate(() -> feed.tick(liveLink), Math.max(100, liveMs), Math.max(100, liveMs),
                    TimeUnit.MILLISECONDS);
        }
        c.scheduleWithFixedDelay(s::retryPending, 1, 1, TimeUnit.SECONDS);
        link.start();
    }

    /**
     * A set-config of rtbox.mqtt on trial: this appliance runs the new settings, so it answers
     * 200 once connected, or after {@code timeoutSeconds} puts the previous settings back (this
     * component then restarts with them); or it runs the previous settings again after such a
     * rollback, and answers that the change was not kept, and why.
     */
    private void judge(ConfigTrial trial, Path trialDir, Dispatcher d, ScheduledExecutorService c, Link l) {
        String keys = String.join(", ", trial.keys);
        if (!trial.trying()) {
            c.execute(() -> {
                d.answer(trial.requestId, "set-config", Reply.bad("set-config of rtbox.mqtt (" + keys + ") rolled back:"
                        + " the new settings did not connect within " + trial.timeoutSeconds + " s (" + trial.reason
                        + "); the appliance is back on its previous settings, " + l.brokers()));
                ConfigTrial.clear(trialDir);
            });
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean decided = new java.util.concurrent.atomic.AtomicBoolean();
        l.onConnected(() -> c.execute(() -> {
            if (decided.compareAndSet(false, true)) {
                ConfigTrial.clear(trialDir);
                d.answer(trial.requestId, "set-config", Reply.ok("configuration rtbox.mqtt updated: " + keys
                        + "; connected with the new settings to " + l.brokers()));
            }
        }));
        c.schedule(() -> {
            if (!decided.compareAndSet(false, true)) {
                return;
            }
            String why = l.lastError() == null ? "no connection made" : "last error: " + l.lastError();
            LOG.warn("set-config of rtbox.mqtt ({}): not connected to {} within {} s ({}): putting the previous "
                    + "settings back",
                    keys, l.brokers(), trial.timeoutSeconds, why);
            org.osgi.service.cm.ConfigurationAdmin ca = configAdmin;
            try {
                trial.rolledBack(trialDir, "tried " + l.brokers() + ": " + why);
                if (ca == null) {
                    throw new IOException("Config Admin is not running");
                }
                ca.getConfiguration(ConfigVerbs.MQTT, "?").update(trial.previousProperties());
            } catch (IOException e) {
                LOG.error("cannot put the previous settings of rtbox.mqtt back ({}): the appliance stays on {}; fix "
                        + "etc/rtbox.mqtt.cfg and restart it",
                        e.getMessage(), l.brokers());
                ConfigTrial.clear(trialDir);
            }
        }, Math.max(1, trial.timeoutSeconds), TimeUnit.SECONDS);
    }

    @Deactivate
    void deactivate() {
        Station s = station;
        if (s == null) {
            return;
        }
        s.closing(true);
        s.activity().stop();
        s.runs().shutdown();
        cmd.shutdown();
        try {
            // A stopped run still writes its result into the outbox before the process goes.
            s.runs().awaitTermination(15, TimeUnit.SECONDS);
            cmd.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cmd.shutdownNow();
        s.runs().shutdownNow();
        link.close();
    }

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
        if (config.dataDir() != null && !config.dataDir().isBlank()) {
            Path dir = Path.of(config.dataDir());
            Files.createDirectories(dir);
            return dir;
        }
        return defaultDataDir(context);
    }

    /** The data folder without a dataDir setting: mqtt/ beside the framework storage. */
    static Path defaultDataDir(BundleContext context) throws IOException {
        String storage = context.getProperty("launch.storage.dir");
        Path dir = storage != null ? Path.of(storage).toAbsolutePath().getParent().resolve("mqtt")
                : context.getDataFile("mqtt").toPath();
        Files.createDirectories(dir);
        return dir;
    }

    static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
