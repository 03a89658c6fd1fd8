package rtbox.workload.pipe.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.Workload;
import rtbox.api.WorkloadHandle;
import rtbox.core.toolkit.Parameters;
import rtbox.os.ThreadSettings;

/**
 * The pipe switcher (seed 001): one byte through a pipe, one way or round trip,
 * between two threads or between this JVM and a child process.
 */
@Component(service = Workload.class, property = Workload.NAME + "=pipe", configurationPid = "rtbox.workload.pipe")
@Designate(ocd = PipeConfig.class)
public class PipeWorkload implements Workload {
    static final List<String> KEYS = List.of("mode", "ends", "count", "loop", "policy", "priority", "nice", "cpu");
    private volatile Map<String, Object> defaults = Map.of();

    @Activate
    @Modified
    void configure(PipeConfig c) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("mode", c.mode());
        d.put("ends", c.ends());
        d.put("count", c.count());
        d.put("loop", c.loop());
        d.put("policy", c.policy());
        d.put("priority", c.priority());
        d.put("nice", c.nice());
        d.put("cpu", c.cpu());
        defaults = d;
    }

    @Override
    public void validate(Map<String, String> parameters) throws RtboxException {
        settings(defaults, parameters);
    }

    @Override
    public WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException {
        PipeRun.Settings s = settings(defaults, parameters);
        PipeRun run = new PipeRun(s);
        run.start();
        if (s.rtt() && s.machineCode() && run.loopNote() != null) {
            // A switcher slower than asked for is a different load: the result must say so.
            context.event("workload", "pipe: " + run.loopNote());
        }
        return run;
    }

    /** Checks and reads the parameters. */
    static PipeRun.Settings settings(Map<String, Object> defaults, Map<String, String> given) throws RtboxException {
        Parameters p = new Parameters("pipe", defaults, given).only(given, KEYS);
        boolean rtt = p.choice("mode", "oneway", "oneway", "rtt").equals("rtt");
        boolean processes = p.choice("ends", "threads", "threads", "processes").equals("processes");
        long count = p.integer("count", 0, 0, Long.MAX_VALUE / 2);
        boolean machineCode = p.choice("loop", "code", "code", "jna").equals("code");
        ThreadSettings ts = ThreadSettings.parse(p.asMap(), "");
        return new PipeRun.Settings(rtt, processes, count, ts, machineCode);
    }
}
