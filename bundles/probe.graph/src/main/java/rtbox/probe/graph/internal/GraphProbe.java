package rtbox.probe.graph.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import rtbox.api.Probe;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.ThreadResult;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.core.toolkit.ParameterChecks;
import rtbox.os.MemoryLock;
import rtbox.os.OsException;

/**
 * A JACK-like processing graph (seed 004): a driver woken every period, N clients woken
 * one after another, each doing calibrated CPU work, the last waking the driver's side.
 * Its figures are the ones JACK users know: cycles, xruns (each an event at its time,
 * with how late the cycle finished), the driver's wake-up delay (its histogram is the
 * thread's latency: delay_max_us is its max), the DSP load (graph time over period, mean
 * and max) and the achieved period. xruns are the thread's missed deadlines, so the
 * thresholds {@code xruns} (an alias of missed_deadlines) and {@code delay_max_us} (of
 * max_us) judge them.
 */
@Component(service = Probe.class, property = Probe.NAME + "=graph")
public class GraphProbe implements Probe {
    /** How long a stopped driver may stay blocked on a stuck graph before it is woken. */
    private static final long STUCK_GRACE_NS = 1_000_000_000L;
    /** How often the work keeper reads the clients' CPU time. */
    private static final long KEEPER_POLL_MS = 20;

    @Override
    public void validate(RunParameters p) throws RtboxException {
        GraphConfig.parse(p);
        ParameterChecks.noBreakNorSamples("graph", p);
        if (p.cpus.length != 1) {
            throw new RtboxException("cpu", "graph: the graph runs on one CPU, as seed 004's did on a uniprocessor; "
                    + "give one (-a 1), not " + p.cpus.length);
        }
        ParameterChecks.common(p);
    }

    @Override
    public ProbeResult run(RunParameters p, RunContext context) throws RtboxException {
        validate(p);
        GraphConfig g = GraphConfig.parse(p);
        List<String> notes = new ArrayList<>();
        boolean locked = false;
        if (p.lockMemory) {
            MemoryLock.lockAll();
            locked = true;
            notes.add("memory locked with mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)");
        }
        try (Clients clients = new Clients(g.clients())) {
            // Children are spawned from this thread: they die with it (PR_SET_PDEATHSIG).
            clients.start(g.processes(), p.cpus[0], p.policy, p.priority);
            WorkKeeper keeper;
            try {
                keeper = new WorkKeeper(clients);
            } catch (OsException e) {
                throw new RtboxException("graph", "graph: cannot read the clients' CPU time to hold their work: "
                        + e.getMessage(), e);
            }
            try (keeper) {
                return measure(g, p, context, clients, keeper, notes);
            }
        } finally {
            if (locked) {
                try {
                    MemoryLock.unlockAll();
                } catch (OsException e) {
                    notes.add(e.getMessage());
                }
            }
        }
    }

    private ProbeResult measure(GraphConfig g, RunParameters p, RunContext context, Clients clients, WorkKeeper keeper,
            List<String> notes) throws RtboxException {
        Driver d = new Driver(g, p, clients, keeper);
        context.measuring(d.live());
        d.start();
        long expectedNs = p.durationNs > 0 ? p.durationNs : p.loops * g.periodNs();
        long stoppedAt = 0;
        String gone = null;
        while (d.isAlive()) {
            if (stoppedAt == 0 && context.stopRequested()) {
                d.requestStop();
                stoppedAt = System.nanoTime();
            }
            if (gone == null && (gone = deadChild(clients)) != null) {
                d.requestStop();
                stoppedAt = System.nanoTime();
            }
            if (stoppedAt != 0 && System.nanoTime() - stoppedAt > STUCK_GRACE_NS) {
                // The driver waits for a cycle that will not end (a client gone): wake it.
                clients.last().writeByte();
            }
            if (d.measuring() && expectedNs > 0) {
                context.progress(Math.min(1.0, (System.nanoTime() - d.startNanos) / (double) expectedNs));
            }
            try {
                // The keeper's windows are short (a slow stretch of the CPU lasts tens of ms);
                // the rest of this loop's checks need no more than every 100 ms.
                for (int i = 0; i < 5 && d.isAlive(); i++) {
                    if (keeper.holding()) {
                        keeper.adjust();
                    }
                    d.join(KEEPER_POLL_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                d.requestStop();
                stoppedAt = stoppedAt == 0 ? System.nanoTime() : stoppedAt;
            }
        }
        if (d.failure() != null) {
            Exception f = d.failure();
            throw f instanceof RtboxException r ? r : new RtboxException("graph", "graph: the driver failed: "
                    + f.getMessage(), f);
        }
        if (gone != null || clients.failure() != null) {
            throw new RtboxException("graph", "graph: " + (gone != null ? gone : clients.failure())
                    + ": the graph cannot cycle without it");
        }
        boolean stopped = stoppedAt != 0;
        if (stopped) {
            notes.add("stopped early on request");
        }
        long slowXruns = 0;
        for (int i = 0; i < Math.min(d.xruns(), Driver.KEPT_XRUNS); i++) {
            String slow = keeper.slowCpu(d.xrunAt[i] - g.periodNs(), d.xrunAt[i]);
            if (slow != null) {
                slowXruns++;
            }
            context.event(d.xrunAt[i], "xrun", String.format(Locale.ROOT, "cycle finished %.1f us after its period "
                    + "ended", d.xrunLate[i] / 1000.0) + (slow == null ? "" : " (" + slow + ")"));
        }
        if (d.xruns() > Driver.KEPT_XRUNS) {
            notes.add("xruns after the first " + Driver.KEPT_XRUNS + " are counted, not shown as events");
        }
        LatencyRecorder r = d.live();
        double period = g.periodNs();
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("cycles", (double) d.cycles());
        f.put("xruns", (double) d.xruns());
        f.put("xruns_cpu_slow", (double) slowXruns);
        f.put("delay_max_us", r.histogram().maxNs() / 1000.0);
        f.put("dsp_load_pct", 100 * d.graphMeanNs() / period);
        f.put("dsp_load_max_pct", 100 * d.graphMaxNs() / period);
        f.put("period_us", period / 1000);
        f.put("period_achieved_us", d.achievedPeriodNs() / 1000);
        f.put("lost_periods", (double) d.lostPeriods());
        f.put("clients", (double) g.clients());
        f.put("processes", g.processes() ? 1.0 : 0.0);
        if (g.loadPct() >= 0) {
            f.put("load_asked_pct", g.loadPct());
        }
        f.put("work_per_client_us", keeper.spins() * keeper.nsPerSpin() / 1000);
        f.put("graph_base_us", d.baseNs / 1000.0);
        f.put("ns_per_spin", keeper.nsPerSpin());
        f.put("work_adjustments", (double) keeper.adjustments());
        if (g.stallNs() > 0) {
            f.put("stalls_injected", (double) d.stalls());
        }
        notes.add("graph: " + g + "; " + (g.rtc() ? "driver woken by " + g.rtcDevice() + " at " + g.rtcHz() + " Hz "
                + "(delay: lateness over the previous wake-up plus the period)" : "driver woken by clock_nanosleep("
                + "CLOCK_MONOTONIC, TIMER_ABSTIME); delay = wake-up time - period start"));
        notes.add("wake-up path: " + d.wakePath());
        notes.add(String.format(Locale.ROOT, "calibrated on CPU %d: %.3f ns a spin alone, the hops %.1f us a cycle "
                + "without work (%.1f us of CPU a client), %d spins of work per client to start (%.1f us)", p.cpus[0],
                d.nsPerSpin, d.baseNs / 1000.0, keeper.hopNs() / 1000.0, d.estimate, d.estimate * d.nsPerSpin / 1000));
        notes.add(String.format(Locale.ROOT, "work held at its CPU time from the clients' schedstat: %d adjustments, "
                + "a spin %.3f to %.3f ns, %d spins (%.1f us) at the end; warm-up rounds' median graph time %s us",
                keeper.adjustments(), keeper.minNsPerSpin(), keeper.maxNsPerSpin(), keeper.spins(),
                keeper.spins() * keeper.nsPerSpin() / 1000, java.util.Arrays.toString(
                        java.util.Arrays.stream(d.roundMedianNs).map(v -> v / 1000).toArray())));
        List<ThreadResult> threads = List.of(new ThreadResult(0, p.cpus[0], d.tid, d.policy, d.priority, r.samples(),
                d.xruns(), r.histogram(), r.corrected(), r.spikes(), r.spikesDropped(), r.lastNs()));
        return new ProbeResult("graph", p + " " + g, "CLOCK_MONOTONIC", d.startNanos, System.nanoTime() - d.startNanos,
                !stopped && !d.broken(), threads, f, notes);
    }

    /** A client process that died (a zombie, or no longer there), or null. */
    private static String deadChild(Clients clients) {
        for (int pid : clients.childPids()) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state == 'Z' || state == 'X') {
                    return "client process " + pid + " died";
                }
            } catch (java.io.IOException | RuntimeException e) {
                return "client process " + pid + " is gone";
            }
        }
        return null;
    }
}
