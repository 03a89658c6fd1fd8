package rtbox.mqtt.internal;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The bundles the appliance needs to stay reachable, which no command may uninstall or
 * update: computed from the live wiring each time, never listed by hand (a list missed the
 * Log Service and metatype, whose removal ended the process without a line).
 *
 * <p>From this bundle and the serving command's bundle (the launcher's {@code main.thread}
 * service): every required wire, optional or not, transitively; and the providers of the
 * services those two and every bundle reached use, when the service is not rtbox's own
 * (Config Admin, metatype, the Log Service: SCR's and Felix's services), with their wires.
 * rtbox's own services (a probe, a workload, the plan runner) are not followed: they come and
 * go by design, and a workload swap is an update of one.
 */
final class Lifeline {
    private Lifeline() {
    }

    static Set<Bundle> of(BundleContext context) {
        Set<Bundle> needed = new HashSet<>();
        ArrayDeque<Bundle> todo = new ArrayDeque<>();
        todo.add(context.getBundle());
        todo.add(context.getBundle(0));
        try {
            ServiceReference<?>[] main = context.getServiceReferences((String) null, "(main.thread=true)");
            if (main != null) {
                for (ServiceReference<?> r : main) {
                    todo.add(r.getBundle());
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        while (!todo.isEmpty()) {
            Bundle next = todo.poll();
            if (next == null || !needed.add(next)) {
                continue;
            }
            BundleWiring w = next.adapt(BundleWiring.class);
            if (w != null) {
                for (BundleWire wire : w.getRequiredWires(null)) {
                    todo.add(wire.getProvider().getBundle());
                }
            }
            ServiceReference<?>[] used = next.getServicesInUse();
            if (used != null) {
                for (ServiceReference<?> r : used) {
                    if (!rtboxOwn(r) && r.getBundle() != null) {
                        todo.add(r.getBundle());
                    }
                }
            }
        }
        return needed;
    }

    private static boolean rtboxOwn(ServiceReference<?> r) {
        Object classes = r.getProperty(Constants.OBJECTCLASS);
        if (classes instanceof String[] names) {
            for (String n : names) {
                if (!n.startsWith("rtbox.")) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }
}
