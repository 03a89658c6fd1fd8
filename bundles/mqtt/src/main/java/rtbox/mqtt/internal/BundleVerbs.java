package rtbox.mqtt.internal;

import java.util.Set;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

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

    @Activate
    void activate(BundleContext context) {
        this.context = context;
    }

    @Override
    public Set<String> verbs() {
        return Set.of("bundles", "install", "update", "uninstall");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        if (of != station) {
            // Its incoming folder is in the station's data folder.
            commands = new BundleCommands(context, station.dataDir());
            of = station;
        }
        switch (verb) {
            case "bundles": {
                Reply r = commands.list();
                r.body().add("verbs", Payloads.GSON.toJsonTree(station.verbs()));
                return r;
            }
            case "install": return commands.install(c);
            case "update": return commands.update(c);
            default: return commands.uninstall(c);
        }
    }
}
