package rtbox.mqtt.internal;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * Which configurations {@code get-config} and {@code set-config} may touch: the PIDs that
 * rtbox's own bundles ({@code rtbox.*}) describe with metatype, and of those only the
 * properties the description names. Computed from the installed bundles, so a workload
 * installed later is settable and nothing else is: Config Admin's own folder took any PID
 * before, {@code ../../..} and {@code a)(b=*} included (issue 31).
 */
final class ConfigAllowList {
    /** A PID as rtbox names them; anything else is refused before Config Admin or a filter sees it. */
    private static final Pattern PID = Pattern.compile("[A-Za-z0-9_]+(\\.[A-Za-z0-9_-]+){0,15}");

    private ConfigAllowList() {
    }

    /**
     * The properties of {@code pid} that may be set, or null when {@code pid} is not one of
     * rtbox's own described configurations.
     */
    static Set<String> properties(BundleContext context, MetaTypeService metatype, String pid) {
        java.util.Map<String, Integer> types = types(context, metatype, pid);
        return types == null ? null : new TreeSet<>(types.keySet());
    }

    /**
     * The properties of {@code pid} that may be set with their metatype types ({@link
     * AttributeDefinition#INTEGER} ...), or null when {@code pid} is not one of rtbox's own
     * described configurations.
     */
    static java.util.Map<String, Integer> types(BundleContext context, MetaTypeService metatype, String pid) {
        if (pid.length() > 100 || !PID.matcher(pid).matches()) {
            return null;
        }
        for (Bundle b : context.getBundles()) {
            String name = b.getSymbolicName();
            if (name == null || !name.startsWith("rtbox.") || b.getState() == Bundle.UNINSTALLED) {
                continue;
            }
            MetaTypeInformation info = metatype.getMetaTypeInformation(b);
            if (info == null || !java.util.Arrays.asList(info.getPids()).contains(pid)) {
                continue;
            }
            ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
            AttributeDefinition[] ads = ocd == null ? null : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
            java.util.Map<String, Integer> keys = new java.util.TreeMap<>();
            if (ads != null) {
                for (AttributeDefinition ad : ads) {
                    keys.put(ad.getID(), ad.getType());
                }
            }
            return keys;
        }
        return null;
    }

    /** The PIDs that may be touched now, for a refusal's message. */
    static Set<String> pids(BundleContext context, MetaTypeService metatype) {
        Set<String> pids = new TreeSet<>();
        for (Bundle b : context.getBundles()) {
            String name = b.getSymbolicName();
            if (name != null && name.startsWith("rtbox.") && b.getState() != Bundle.UNINSTALLED) {
                MetaTypeInformation info = metatype.getMetaTypeInformation(b);
                if (info != null) {
                    pids.addAll(java.util.Arrays.asList(info.getPids()));
                }
            }
        }
        return pids;
    }
}
