package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import rtbox.api.Policy;
import rtbox.api.Probe;
import rtbox.api.Workload;

/**
 * Appliance mode: keeps the framework running, so that bundles dropped into deploy/
 * start and configuration in etc/ applies, until the process is stopped. Prints a
 * line whenever a probe, workload or policy comes or goes, so an operator (and the
 * tests) can see a hot-loaded bundle take effect.
 */
@Command(name = "serve", description = "Runs as the appliance until stopped (SIGTERM).")
class ServeCommand implements Callable<Integer> {
    private static final String FILTER = "(|(" + Probe.NAME + "=*)(" + Workload.NAME + "=*)(" + Policy.NAME + "=*))";
    private final BundleContext context;
    private final CountDownLatch stopped;
    @Spec
    CommandSpec spec;

    ServeCommand(BundleContext context, CountDownLatch stopped) {
        this.context = context;
        this.stopped = stopped;
    }

    @Override
    public Integer call() throws InterruptedException, InvalidSyntaxException {
        PrintWriter out = spec.commandLine().getOut();
        ServiceListener listener = event -> {
            String what = event.getType() == ServiceEvent.REGISTERED ? "available"
                    : event.getType() == ServiceEvent.UNREGISTERING ? "gone" : null;
            if (what != null) {
                out.println("rtbox: " + describe(event.getServiceReference()) + " " + what);
                out.flush();
            }
        };
        context.addServiceListener(listener, FILTER);
        try {
            ServiceReference<?>[] present = context.getServiceReferences((String) null, FILTER);
            if (present != null) {
                for (ServiceReference<?> ref : present) {
                    out.println("rtbox: " + describe(ref) + " available");
                }
            }
            out.println("rtbox: serving; stop with SIGTERM");
            out.flush();
            stopped.await();
        } finally {
            context.removeServiceListener(listener);
        }
        return Cli.OK;
    }

    private static String describe(ServiceReference<?> ref) {
        for (String key : new String[] {Probe.NAME, Workload.NAME, Policy.NAME}) {
            Object name = ref.getProperty(key);
            if (name != null) {
                return key.substring("rtbox.".length()) + " '" + name + "' from " + ref.getBundle().getSymbolicName()
                        + " " + ref.getBundle().getVersion();
            }
        }
        return String.valueOf(ref);
    }
}
