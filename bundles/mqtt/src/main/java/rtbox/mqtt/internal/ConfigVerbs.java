package rtbox.mqtt.internal;

import java.util.Set;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.MetaTypeService;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;

/**
 * {@code get-config} and {@code set-config} through Config Admin ({@link ConfigCommands}); a
 * set of rtbox.mqtt itself is on trial ({@link ConfigTrial}) and answered once it connected,
 * or was rolled back.
 */
@Component(service = Verbs.class)
public class ConfigVerbs implements Verbs {

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile ConfigurationAdmin configAdmin;

    /** Which configurations are rtbox's own (ConfigAllowList): without it none is read or set. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile MetaTypeService metatype;

    private volatile BundleContext context;

    private final ConfigCommands commands = new ConfigCommands(() -> configAdmin, () -> metatype, () -> context);

    @Activate
    void activate(BundleContext context) {
        this.context = context;
    }

    @Override
    public Set<String> verbs() {
        return Set.of("get-config", "set-config");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        if ("get-config".equals(verb)) {
            return commands.get(c);
        }
        return commands.set(c, (pid, previous, keys) -> {
            if (!MQTT.equals(pid)) {
                return null;
            }
            // The appliance's own line: tried, and rolled back if it does not connect (ConfigTrial).
            ConfigTrial.begin(station.trialDir(), requestId, keys, station.config().configTrialSeconds(), previous);
            return Reply.LATER;
        });
    }

    /** The appliance's own configuration: a change to it is tried before it is kept. */
    static final String MQTT = "rtbox.mqtt";
}
