package rtbox.control.internal;

import java.io.IOException;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.plan.Plans;

/**
 * The control room's operations, a component of its own: what operators and admins do to
 * appliances ({@link Operations}, the plan library {@link PlanLibrary}, the commands and their
 * replies {@link Commander}) and what follows a stored message ({@link #afterStored}: replies to
 * the commander, a new appliance asked for its bundles, the sign-off by verdict). Configured by
 * PID {@code rtbox.control.serve} ({@code plansDir}, {@code signOff}, {@code replySeconds}).
 *
 * <p>It references neither the ingest nor the MQTT link: the ingest calls its hook, and the link
 * ({@link ControlLink}, which references this component) attaches itself as the commander's
 * outlet when it starts and detaches before it stops. So the three form no cycle of references,
 * SCR starts them in the order operations, ingest, link, and the link subscribes only once the
 * hook is there: no message of the broker's persistent session passes without it. A command
 * while no link is attached is answered as one the broker did not take (503).
 */
@Component(service = ControlOperations.class, configurationPid = ControlRoom.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class ControlOperations {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.operations");
    @Reference
    ControlStore store;
    @Reference
    ControlRecords recordsComponent;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Plans plans;

    private volatile Commander.Publisher outlet;
    private ExecutorService pool;
    private java.util.concurrent.ScheduledExecutorService queueSweeper;
    private Commander commander;
    private PlanLibrary library;
    private Operations operations;
    private Records records;
    private boolean signOffByVerdict;

    @Activate
    void activate(Settings s) throws SQLException, IOException {
        AtomicInteger n = new AtomicInteger();
        pool = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "rtbox-control-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        commander = new Commander(this::publish);
        library = new PlanLibrary(new PlanStore(store.db()), ControlCommand.plansDir(s), () -> plans);
        library.importShipped(PlanLibrary.shippedPlans(org.osgi.framework.FrameworkUtil.getBundle(ControlOperations.class)));
        library.importFolder();
        operations = new Operations(store.db(), commander, library, pool, Math.max(1, s.replySeconds()) * 1000);
        sweepQueue();
        records = recordsComponent.records();
        signOffByVerdict = "verdict".equals(s.signOff());
    }

    private void publish(String topic, byte[] payload) throws Exception {
        Commander.Publisher to = outlet;
        if (to == null) {
            throw new IOException("the MQTT link is not up");
        }
        to.publish(topic, payload);
    }

    /** The link that publishes the commands, from its start until its stop (null: none). */
    void attach(Commander.Publisher link) {
        outlet = link;
    }

    Operations operations() {
        return operations;
    }

    PlanLibrary library() {
        return library;
    }

    /** The ingest's hook, after it stored a message. */
    void afterStored(Inbound m, IngestStore.Outcome o) {
        switch (m.kind()) {
            case REPLY -> commander.replied(m);
            case STATUS -> {
                com.google.gson.JsonObject st = m.json();
                boolean busy = st.has("busy") && !st.get("busy").isJsonNull() && st.get("busy").getAsBoolean();
                if ("online".equals(Json.string(st, "state"))) {
                    operations.queue().status(m.appliance(), busy);
                    if (!busy) {
                        pool.execute(() -> operations.queue().kick(m.appliance()));
                    }
                }
                if (o.cameOnline()) {
                    pool.execute(() -> {
                        operations.askBundles(m.appliance());
                        operations.askReadiness(m.appliance());
                    });
                }
            }
            case RESULT -> {
                if (signOffByVerdict) {
                    pool.execute(() -> autoSignOff(m.appliance(), m.run()));
                }
            }
            default -> {
            }
        }
    }

    /**
     * Every 5 s, the appliances whose queued start can go now: a status event can be missed, and
     * after a restart the starts that were being sent are sent again ({@link StartQueue}).
     */
    private void sweepQueue() {
        queueSweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rtbox-control-queue");
            t.setDaemon(true);
            return t;
        });
        queueSweeper.scheduleWithFixedDelay(() -> {
            try {
                for (String a : operations.queue().ready()) {
                    pool.execute(() -> operations.queue().kick(a));
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("queue sweep: {}", Db.rootMessage(e));
            }
        }, 1000, 5000, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void autoSignOff(String appliance, String run) {
        try {
            records.issue("verdict", appliance, run, "signed off by the plan's verdict (signOff=verdict)", "verdict");
        } catch (BadRequest | SQLException | IOException e) {
            LOG.warn("no record for run {} of {}: {}", run, appliance, e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        outlet = null;
        if (queueSweeper != null) {
            queueSweeper.shutdownNow();
            queueSweeper = null;
        }
        if (pool != null) {
            pool.shutdownNow();
            pool = null;
        }
    }
}
