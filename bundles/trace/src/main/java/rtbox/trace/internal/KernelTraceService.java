package rtbox.trace.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.nio.file.Path;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.trace.KernelTrace;
import rtbox.trace.TraceSession;

/**
 * The kernel trace service. Immediate, so that a start of the appliance removes what a
 * killed one left in tracefs (its instance, its mount) before anything else runs.
 */
@Component(service = KernelTrace.class, immediate = true, configurationPid = "rtbox.trace",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = KernelTraceService.Config.class)
public class KernelTraceService implements KernelTrace {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.trace");

    @ObjectClassDefinition(name = "rtbox kernel trace", description = "A private tracefs instance per run that "
            + "names what held the probe's CPU during each spike.")
    public @interface Config {
        @AttributeDefinition(description = "Trace runs (false: spikes keep their labels without a culprit).")
        boolean enabled() default true;

        @AttributeDefinition(description = "Kernel ring buffer per traced CPU, in KiB (buffer_size_kb).")
        int bufferSizeKb() default 2048;

        @AttributeDefinition(description = "Intervals of who held a CPU kept per CPU (24 bytes each, on the heap); "
                + "the oldest are dropped beyond.")
        int intervalsPerCpu() default 131072;

        @AttributeDefinition(description = "At most this many intervals kept over all traced CPUs (the heap is "
                + "48 MB on the board): a run on many CPUs keeps fewer per CPU.")
        int intervalsTotal() default 262144;

        @AttributeDefinition(description = "How often the reader empties the kernel's buffers, in ms.")
        int pollMs() default 10;

        @AttributeDefinition(description = "State file naming the instance (and mount) to remove after a crash; "
                + "empty: data/trace.state in the rtbox home.")
        String stateFile() default "";
    }

    private volatile Config config;
    private volatile TraceState state;

    @Activate
    void activate(Config c) {
        modified(c);
        List<String> done = state.restoreLeftovers();
        Path root = TraceFs.mounted();
        if (root != null) {
            try {
                done.addAll(TraceFs.open().removeOrphans().stream()
                        .map(n -> "removed the orphaned tracefs instance " + n).toList());
            } catch (RtboxException e) {
                // mounted() found it: open() does not fail
            }
        }
        if (!done.isEmpty()) {
            LOG.info("at start, {}", String.join("; ", done));
        }
    }

    /** A stopping bundle leaves no instance and no thread: the last run's removal finishes first. */
    @Deactivate
    void deactivate() {
        Session.awaitPendingRemoval();
    }

    @Modified
    void modified(Config c) {
        config = c;
        String file = c.stateFile().isEmpty() ? System.getProperty("rtbox.home", ".") + "/data/trace.state"
                : c.stateFile();
        state = new TraceState(Path.of(file));
    }

    @Override
    public TraceSession start(int[] cpus, SchedPolicy probePolicy, int probePriority) throws RtboxException {
        Config c = config;
        if (!c.enabled()) {
            throw new RtboxException("trace", "the kernel trace is off (rtbox.trace enabled=false)");
        }
        return Session.start(state, cpus, probePolicy, probePriority, Math.max(16, c.bufferSizeKb()),
                Math.max(1024, Math.min(c.intervalsPerCpu(), c.intervalsTotal() / Math.max(1, cpus.length))),
                Math.max(1, c.pollMs()) * 1_000_000L);
    }
}
