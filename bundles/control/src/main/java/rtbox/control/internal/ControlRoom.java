package rtbox.control.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.Executors;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import com.google.gson.JsonObject;

/**
 * The control room proper, started by {@code rtbox control} (configuration
 * {@code rtbox.control.serve}): users, sessions, tokens, queries, comparisons and the silence
 * sweep, over the components it references: the store and the records ({@link ControlStore},
 * {@link ControlRecords}), the ingest ({@link ControlIngest}), the MQTT link ({@link ControlLink})
 * and the operations ({@link ControlOperations}). The HTTP API ({@link Api}) and its servlet
 * context ({@link ControlContext}) are components that reference this one, so SCR registers them
 * once it has started and removes them before it stops. Stopping it leaves no thread.
 */
@Component(service = ControlRoom.class, configurationPid = ControlRoom.PID, configurationPolicy =
        ConfigurationPolicy.REQUIRE, immediate = true)
public class ControlRoom {
    static final String PID = "rtbox.control.serve";
    /** The API servlet's name on the Servlet Whiteboard (rtbox control waits for it before "serving"). */
    static final String API_SERVLET = "rtbox.control.api";
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control");
    /** Why the last start failed, for rtbox control to print. */
    @Reference
    StartFailure startFailure;
    /** The database, opened and closed by its own component. */
    @Reference
    ControlStore store;
    /** The acceptance records, a component of their own (their keys opened there). */
    @Reference
    ControlRecords recordsComponent;

    /** The MQTT session: connected (so ingest and operations are up) before this component activates. */
    @Reference
    ControlLink link;
    @Reference
    ControlIngest ingestComponent;
    @Reference
    ControlOperations operationsComponent;
    /** The webhooks (their list for the API; their deliveries run in that component). */
    @Reference
    ControlWebhooks webhooksComponent;

    Db db;
    Users users;
    Audit audit;
    Refusals refusals;
    ApiTokens tokens;
    RunWait runWait;
    Queries queries;
    Events events;
    Ingest ingest;
    Operations operations;
    Compare compare;
    RegressionSets regression;
    Records records;
    PlanLibrary library;
    Webhooks webhooks;
    private java.util.concurrent.ScheduledExecutorService sweeper;
    private Settings settings;
    private volatile boolean running;
    private Path adminPasswordFile;
    private boolean adminMade;

    @Activate
    void activate(Settings s) throws Exception {
        settings = s;
        try {
            Path data = Path.of(s.dataDir());
            db = store.db();
            users = new Users(db);
            audit = new Audit(db);
            refusals = new Refusals(audit);
            tokens = new ApiTokens(db, audit);
            adminPasswordFile = data.resolve("control").resolve("admin-password");
            adminMade = users.ensureAdmin(adminPasswordFile);
            queries = new Queries(db);
            events = ingestComponent.events();
            runWait = new RunWait(db, events);
            operations = operationsComponent.operations();
            operations.queue().events(events); // the queue's changes on the event stream (live and fleet pages)
            library = operationsComponent.library();
            compare = new Compare(db, queries);
            regression = new RegressionSets(db);
            records = recordsComponent.records();
            ingest = ingestComponent.ingest();
            webhooks = webhooksComponent.webhooks();
            running = true;
            if (s.silentAfterSeconds() > 0) {
                sweepSilence(new Silence(db, s.silentAfterSeconds() * 1000));
            }
        } catch (Exception e) {
            String why = Db.rootMessage(e);
            startFailure.set(why);
            LOG.warn("cannot start: {}", why);
            deactivate();
            throw e;
        }
    }

    /** Every quarter of silentAfterSeconds (at most 10 s): appliances silent too long are shown offline. */
    private void sweepSilence(Silence silence) {
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rtbox-control-silence");
            t.setDaemon(true);
            return t;
        });
        long periodMs = Math.max(1000, Math.min(10_000, settings.silentAfterSeconds() * 250));
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                java.util.List<String> gone = silence.sweep(System.currentTimeMillis());
                if (!gone.isEmpty()) {
                    LOG.info("not heard from for {} s, shown offline: {}{}", settings.silentAfterSeconds(),
                            String.join(", ", gone.subList(0, Math.min(20, gone.size()))),
                            (gone.size() > 20 ? " and " + (gone.size() - 20) + " more" : ""));
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("silence sweep: {}", Db.rootMessage(e));
            }
        }, periodMs, periodMs, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    boolean running() {
        return running;
    }

    boolean mqttConnected() {
        return link.connected();
    }

    Path adminPasswordFile() {
        return adminPasswordFile;
    }

    boolean adminMade() {
        return adminMade;
    }

    Settings settings() {
        return settings;
    }

    JsonObject setPlace(String user, String appliance, JsonObject b) throws SQLException {
        String site = Json.string(b, "site"), line = Json.string(b, "line");
        try (java.sql.Connection c = db.connection()) {
            c.setAutoCommit(false);
            if (Sql.update(c, "UPDATE appliance SET site = ?, line = ? WHERE id = ?", site, line, appliance) == 0) {
                throw new NotFound("no appliance '" + appliance + "'");
            }
            Audit.log(c, user, "appliance-set", appliance, b);
            c.commit();
        }
        return queries.appliance(appliance);
    }

    /** POST /api/v1/appliances/ID/accept: an unregistered appliance becomes part of the fleet (audited). */
    JsonObject accept(String user, String appliance) throws SQLException {
        try (java.sql.Connection c = db.connection()) {
            c.setAutoCommit(false);
            Boolean was = Sql.one(c, "SELECT registered FROM appliance WHERE id = ?", rs -> rs.getBoolean(1), appliance);
            if (was == null) {
                throw new NotFound("no appliance '" + appliance + "'");
            }
            if (!was) {
                Sql.update(c, "UPDATE appliance SET registered = TRUE, registered_by = ?, registered_ms = ? WHERE id = ?",
                        user, System.currentTimeMillis(), appliance);
            }
            JsonObject d = new JsonObject();
            d.addProperty("was_registered", was);
            Audit.log(c, user, "appliance-accept", appliance, d);
            c.commit();
        }
        return queries.appliance(appliance);
    }

    @Deactivate
    void deactivate() {
        running = false;
        if (refusals != null) {
            refusals.flush();
        }
        if (tokens != null) {
            tokens.flush();
        }
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
        db = null; // the store's: it closes it when the configuration goes
    }
}
