package rtbox.mqtt.internal;

import java.util.Set;

import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;

/** {@code get-config} and {@code set-config} through Config Admin ({@link ConfigCommands}). */
@Component(service = Verbs.class)
public class ConfigVerbs implements Verbs {

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile ConfigurationAdmin configAdmin;

    private final ConfigCommands commands = new ConfigCommands(() -> configAdmin);

    @Override
    public Set<String> verbs() {
        return Set.of("get-config", "set-config");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        return "get-config".equals(verb) ? commands.get(c) : commands.set(c);
    }
}
