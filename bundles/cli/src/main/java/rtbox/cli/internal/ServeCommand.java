package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import rtbox.api.Policy;
import rtbox.api.Probe;
import rtbox.api.Workload;
import rtbox.cli.Subcommand;

/**
 * Appliance mode: keeps the framework running, so that bundles dropped into deploy/
 * start and configuration in etc/ applies, until the process is stopped. Prints a
 * line whenever a probe, workload or policy comes or goes, so an operator (and the
 * tests) can see a hot-loaded bundle take effect. Serves until this component is
 * deactivated (the framework stops).
 */
@Component(service = Subcommand.class)
@Command(name = "serve", description = "Runs as the appliance until stopped (SIGTERM).")
public class ServeCommand implements Callable<Integer>, Subcommand {
    private static final String FILTER = "(|(" + Probe.NAME + "=*)(" + Workload.NAME + "=*)(" + Policy.NAME + "=*))";
    private final CountDownLatch stopped = new CountDownLatch(1);
    private BundleContext context;
    @Spec
    CommandSpec spec;

    @Activate
    void activate(BundleContext context) {
        this.context = context;
    }

    @Deactivate
    void deactivate() {
        stopped.countDown();
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
