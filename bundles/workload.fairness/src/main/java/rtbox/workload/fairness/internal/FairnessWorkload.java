package rtbox.workload.fairness.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.SchedPolicy;
import rtbox.api.Workload;
import rtbox.api.WorkloadHandle;
import rtbox.core.toolkit.Parameters;
import rtbox.os.ThreadSettings;

/**
 * The CPU fairness load (seed 003, massive_intr): N workers that each do W ms of
 * work and sleep S ms, counting rounds; a fair scheduler gives them equal counts.
 * Optionally one SCHED_FIFO disturber whose work and sleep grow by 1 ms a round up
 * to a maximum, then start again, as in the seed's modified test.
 */
@Component(service = Workload.class, property = Workload.NAME + "=fairness",
        configurationPid = "rtbox.workload.fairness")
@Designate(ocd = FairnessConfig.class)
public class FairnessWorkload implements Workload {
    static final List<String> KEYS = List.of("workers", "work", "sleep", "disturber", "disturber.priority",
            "disturber.max", "policy", "priority", "nice", "cpu");
    static final int MAX_WORKERS = 1024;
    private volatile Map<String, Object> defaults = Map.of();

    @Activate
    @Modified
    void configure(FairnessConfig c) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("workers", c.workers());
        d.put("work", c.work());
        d.put("sleep", c.sleep());
        d.put("disturber", c.disturber());
        d.put("disturber.priority", c.disturber_priority());
        d.put("disturber.max", c.disturber_max());
        d.put("policy", c.policy());
        d.put("priority", c.priority());
        d.put("nice", c.nice());
        d.put("cpu", c.cpu());
        defaults = d;
    }

    @Override
    public void validate(Map<String, String> parameters) throws RtboxException {
        settings(parameters);
    }

    @Override
    public WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException {
        FairnessRun run = settings(parameters);
        run.start();
        return run;
    }

    /** The run that {@code parameters} ask for, checked, not started. */
    private FairnessRun settings(Map<String, String> parameters) throws RtboxException {
        Parameters p = new Parameters("fairness", defaults, parameters).only(parameters, KEYS);
        int workers = (int) p.integer("workers", 4, 1, MAX_WORKERS);
        long workNs = p.nanos("work", 8_000_000L, "ms");
        long sleepNs = p.nanos("sleep", 1_000_000L, "ms");
        if (workNs < 100_000 || workNs > 10_000_000_000L) {
            throw new RtboxException("work", "fairness: work " + workNs / 1e6 + " ms is out of range: use 0.1 ms to 10 s");
        }
        if (sleepNs > 10_000_000_000L) {
            throw new RtboxException("sleep", "fairness: sleep " + sleepNs / 1e6 + " ms is out of range: use 0 to 10 s");
        }
        String d = p.choice("disturber", "false", "true", "false", "yes", "no", "1", "0");
        boolean disturber = d.equals("true") || d.equals("yes") || d.equals("1");
        ThreadSettings ws = ThreadSettings.parse(p.asMap(), "");
        ThreadSettings ds = null;
        long disturberMaxNs = p.nanos("disturber.max", 50_000_000L, "ms");
        if (disturber) {
            int prio = (int) p.integer("disturber.priority", 1, SchedPolicy.FIFO.minPriority, SchedPolicy.FIFO.maxPriority);
            ds = new ThreadSettings(SchedPolicy.FIFO, prio, 0, ws.cpus());
            if (disturberMaxNs < workNs) {
                throw new RtboxException("disturber.max", "fairness: disturber.max " + disturberMaxNs / 1e6
                        + " ms is below work " + workNs / 1e6 + " ms");
            }
        }
        return new FairnessRun(workers, workNs, sleepNs, ws, ds, disturberMaxNs, Spin.iterationsPerMs());
    }
}
