package rtbox.control.internal;

import java.nio.file.Path;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control room's ingest, a component of its own: {@link Ingest} (decoder, flood guard,
 * {@link IngestStore} over the store's database and the registered appliances) and the live
 * events it feeds, with {@link ControlOperations#afterStored} as its hook. Configured by PID
 * {@code rtbox.control.serve} ({@code maxMessageBytes}, {@code floodMessagesPerSecond},
 * {@code appliancesFile}, {@code embeddedBroker}, {@code username}). The MQTT link
 * ({@link ControlLink}) references it and delivers to it; it holds no thread.
 */
@Component(service = ControlIngest.class, configurationPid = ControlRoom.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class ControlIngest {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control");
    @Reference
    ControlStore store;
    @Reference
    ControlOperations operations;
    private Events events;
    private Ingest ingest;
    private RunFigures figures;

    @Activate
    void activate(Settings s) {
        Registry registry = new Registry(s.embeddedBroker(), s.appliancesFile() == null
                || s.appliancesFile().isEmpty() ? null : Path.of(s.appliancesFile()), s.username());
        LOG.info("appliances: {}", registry.describe());
        events = new Events();
        figures = new RunFigures(store.db());
        try {
            figures.load();
        } catch (java.sql.SQLException e) {
            // /metrics then shows the last runs from the next results on; the ingest is not held up for it.
            LOG.warn("cannot read the appliances' last runs for /metrics: {}", Db.rootMessage(e));
        }
        ingest = new Ingest(new Decoder(s.maxMessageBytes()), new IngestStore(store.db(), registry), events,
                (m, o) -> {
                    figures.stored(m);
                    operations.afterStored(m, o);
                }, new FloodGuard(s.floodMessagesPerSecond()));
    }

    /** What /metrics says of runs: verdict counts and each appliance's last run, in memory. */
    RunFigures figures() {
        return figures;
    }

    Ingest ingest() {
        return ingest;
    }

    /** What the live pages listen to. */
    Events events() {
        return events;
    }
}
