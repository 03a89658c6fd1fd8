package rtbox.mqtt.internal;

import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;

/**
 * The bundle verbs ({@link BundleCommands}): {@code bundles} also lists the verbs this
 * appliance answers now, so a missing family (the plan verbs without rtbox.plan) shows.
 */
@Component(service = Verbs.class)
public class BundleVerbs implements Verbs {
    private BundleContext context;
    private BundleCommands commands;
    private Station of;

    /** Bundles from a url are downloaded here, off the command thread; the other thread keeps the deadline. */
    private ExecutorService downloads;
    private ScheduledExecutorService deadlines;

    @Activate
    void activate(BundleContext context) {
        this.context = context;
        downloads = Executors.newSingleThreadExecutor(Appliance.named("rtbox-mqtt-download"));
        deadlines = Executors.newSingleThreadScheduledExecutor(Appliance.named("rtbox-mqtt-download-deadline"));
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        // A download under way is cut (its socket read interrupted where it can be, its deadline otherwise).
        downloads.shutdownNow();
        deadlines.shutdownNow();
        downloads.awaitTermination(5, TimeUnit.SECONDS);
        deadlines.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Override
    public Set<String> verbs() {
        return Set.of("bundles", "install", "update", "uninstall");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        if (of != station) {
            // Its incoming folder is in the station's data folder.
            commands = new BundleCommands(context, station.dataDir(), downloads, deadlines,
                    station.config().downloadSeconds());
            of = station;
        }
        switch (verb) {
            case "bundles": {
                Reply r = commands.list();
                r.body().add("verbs", Payloads.GSON.toJsonTree(station.verbs()));
                return r;
            }
            case "install": return commands.install(c, r -> station.answerLater(requestId, verb, r));
            case "update": return commands.update(c, r -> station.answerLater(requestId, verb, r));
            default: return commands.uninstall(c);
        }
    }
}
