package rtbox.policy.sched.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import rtbox.api.Policy;
import rtbox.api.EffectivePolicy;
import rtbox.api.PolicyHandle;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.SchedPolicy;
import rtbox.core.toolkit.Parameters;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * Over 400 lines: apply (each setting checked, recorded in the state file before it is
 * changed) and close (each restored in reverse order) are one contract and stay side by
 * side; the ISO rule, its band and its supervisor are classes of their own.
 *
 * <p>The scheduling tuner (seed 004). Where the kernel has SCHED_ISO (policy 4 accepted,
 * /proc/sys/kernel/iso_cpu and iso_period present) it runs the probe threads at
 * SCHED_ISO and sets iso_cpu. On a mainline kernel it emulates SCHED_ISO's rule: the
 * threads run in the ISO band of SCHED_RR/FIFO ({@link IsoBand}) and an
 * {@link IsoSupervisor} demotes them to SCHED_OTHER while the ISO class is over
 * iso_cpu ({@link IsoRule}). RT throttling (sched_rt_runtime_us) is its own setting.
 * It also sets nice and timer slack of the run's thread (which the probe and load
 * threads started by it inherit) and, only when asked, holds /dev/cpu_dma_latency
 * open for the run. Kernel settings are recorded in a state file, synced, before
 * they are changed; closing the handle puts them back, and so does the next
 * activation if a run died with the file still there.
 */
@Component(service = Policy.class, property = Policy.NAME + "=sched", immediate = true,
        configurationPid = "rtbox.policy.sched", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TunerConfig.class)
public class SchedTuner implements Policy {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.policy.sched");

    /** The settings a run may give. */
    static final List<String> KEYS = List.of("policy", "priority", "iso_cpu", "iso_period_ms", "iso_sample_ms",
            "iso_priority", "rt_runtime_us", "nice", "timer_slack_ns", "cpu_dma_latency_us");
    /** Key of {@link PolicyHandle#changes()} naming the rule that ran: native ISO, emulated ISO, FIFO/RR with throttling. */
    static final String RULE = "sched.rule";
    /** Key of {@link PolicyHandle#changes()} giving the measuring threads' policy: "REQUESTED -> POLICY/PRIORITY". */
    static final String THREAD_POLICY = "thread.policy";

    private final Path kernel;
    private final BooleanSupplier isoAccepted;
    private final Path dmaDevice;
    /** The root cpu cgroup's RT runtime (RT group scheduling on cgroup v1), or null. */
    private final Path rootGroup;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile StateFile state;
    private volatile SchedPolicy fallbackPolicy = SchedPolicy.RR;
    private volatile int fallbackPriority = 50;
    /** What activation restored, for the log and the tests. */
    private final List<String> restoredAtStart = Collections.synchronizedList(new ArrayList<>());

    public SchedTuner() {
        this(Path.of("/proc/sys/kernel"), () -> Sched.accepts(SchedPolicy.ISO), Path.of("/dev/cpu_dma_latency"),
                Path.of("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"));
    }

    SchedTuner(Path kernel, BooleanSupplier isoAccepted, Path dmaDevice, Path rootGroup) {
        this.kernel = kernel;
        this.rootGroup = rootGroup;
        this.isoAccepted = isoAccepted;
        this.dmaDevice = dmaDevice;
    }

    @Activate
    void activate(TunerConfig config) {
        configure(config);
        restoreLeftovers();
    }

    @Modified
    void configure(TunerConfig config) {
        String file = config.state_file();
        if (file == null || file.isBlank()) {
            file = System.getProperty("rtbox.home", ".") + "/data/policy.sched.state";
        }
        state = new StateFile(Path.of(file));
        fallbackPolicy = "fifo".equalsIgnoreCase(config.fallback_policy().trim()) ? SchedPolicy.FIFO : SchedPolicy.RR;
        fallbackPriority = Math.max(1, Math.min(99, config.fallback_priority()));
    }

    void stateFile(Path file) {
        state = new StateFile(file);
    }

    List<String> restoredAtStart() {
        return List.copyOf(restoredAtStart);
    }

    /** Puts back what a run that died left behind; never throws. */
    void restoreLeftovers() {
        StateFile s = state;
        if (s == null || !s.exists() || busy.get()) {
            return;
        }
        try {
            List<Map.Entry<Path, Long>> originals = new ArrayList<>(s.read().entrySet());
            // Undone in the reverse of the order they were changed in.
            Collections.reverse(originals);
            long pid = s.pid();
            List<String> failed = new ArrayList<>();
            for (Map.Entry<Path, Long> e : originals) {
                try {
                    long now = Sysctl.read(e.getKey());
                    if (now != e.getValue()) {
                        Sysctl.write(e.getKey(), e.getValue());
                    }
                    restoredAtStart.add(e.getKey().getFileName() + " " + now + " -> " + e.getValue());
                } catch (IOException ex) {
                    failed.add(ex.getMessage());
                }
            }
            LOG.info("a run (pid {}) ended without restoring; put back {}{}", pid,
                    (restoredAtStart.isEmpty() ? "nothing" : String.join(", ", restoredAtStart)),
                    (failed.isEmpty() ? "" : "; could not restore: " + String.join("; ", failed)));
            if (failed.isEmpty()) {
                s.delete();
            }
        } catch (IOException e) {
            LOG.warn("cannot read {}: {}", s.path(), e.getMessage());
        }
    }

    /** Whether this kernel has SCHED_ISO: the policy is accepted and its two sysctls exist. */
    boolean isoAvailable() {
        return Files.exists(kernel.resolve("iso_cpu")) && Files.exists(kernel.resolve("iso_period"))
                && isoAccepted.getAsBoolean();
    }

    @Override
    public PolicyHandle apply(Map<String, String> settings, RunContext context) throws RtboxException {
        Parameters p = new Parameters("policy sched", null, settings).only(settings, KEYS);
        String policyName = p.string("policy", "");
        SchedPolicy requested = policyName.isEmpty() ? null : SchedPolicy.parse(policyName);
        long isoCpu = p.integer("iso_cpu", -1, 0, 100);
        long runtime = p.integer("rt_runtime_us", -2, -1, Integer.MAX_VALUE);
        boolean niceGiven = !p.string("nice", "").isEmpty();
        int nice = (int) p.integer("nice", 0, -20, 19);
        long slack = p.integer("timer_slack_ns", 0, 1, 1_000_000_000L);
        long dma = p.integer("cpu_dma_latency_us", -1, 0, 2_000_000_000L);
        int priority = (int) p.integer("priority", -1, 0, 99);
        long isoPeriodMs = p.integer("iso_period_ms", 5000, 100, 600_000);
        long isoSampleMs = p.integer("iso_sample_ms", 10, 4, 10);
        int isoPriority = (int) p.integer("iso_priority", IsoBand.LOW, IsoBand.LOW, IsoBand.HIGH);

        Map<String, String> changes = new LinkedHashMap<>();
        Map<Path, Long> sysctls = new LinkedHashMap<>();
        boolean iso = (requested == SchedPolicy.ISO || isoCpu >= 0) && isoAvailable();
        String threadText = null;
        EffectivePolicy threads = null;
        if (requested != null) {
            SchedPolicy effective = requested;
            int prio;
            if (requested == SchedPolicy.ISO && !iso) {
                // Emulated: the ISO band, whatever priority the run gave (SCHED_ISO has none).
                effective = fallbackPolicy;
                prio = IsoBand.rtPriority(isoPriority);
            } else if (requested.isRealtime()) {
                prio = priority > 0 ? priority : fallbackPriority;
            } else {
                if (priority > 0) {
                    throw new RtboxException("priority", "priority " + priority + " needs fifo or rr, not "
                            + requested.lowerName());
                }
                prio = 0;
            }
            if (prio < effective.minPriority || prio > effective.maxPriority) {
                throw new RtboxException("priority", "priority " + prio + " is out of range for SCHED_" + effective
                        + ": use " + effective.minPriority + " to " + effective.maxPriority);
            }
            changes.put(THREAD_POLICY, requested.lowerName() + " -> " + effective.lowerName() + "/" + prio);
            threads = new EffectivePolicy(effective, prio);
            threadText = "SCHED_" + effective + (effective.isRealtime() ? " " + prio : "");
        }
        IsoRule isoRule = null;
        if (isoCpu >= 0 || requested == SchedPolicy.ISO) {
            if (iso) {
                if (isoCpu >= 0) {
                    sysctls.put(kernel.resolve("iso_cpu"), isoCpu);
                }
                changes.put(RULE, "native ISO" + (isoCpu >= 0 ? " (iso_cpu " + isoCpu + " %)" : ""));
            } else if (requested == SchedPolicy.ISO) {
                long cpu = isoCpu >= 0 ? isoCpu : 70;
                isoRule = new IsoRule((int) cpu, isoPeriodMs * 1_000_000L, isoSampleMs * 1_000_000L);
                changes.put(RULE, "emulated ISO (iso_cpu " + cpu + " %, iso_period " + isoPeriodMs + " ms, sampled every "
                        + isoSampleMs + " ms)");
                changes.put("note.iso", "SCHED_ISO is absent on this kernel (policy 4 refused or no "
                        + kernel.resolve("iso_cpu") + "), so it is emulated: the measuring threads run at " + threadText
                        + " (the ISO band, " + IsoBand.LOW + " to " + IsoBand.HIGH + ", under rtbox's measuring threads"
                        + (priority > 0 ? "; priority " + priority + " is not used, as SCHED_ISO has none" : "")
                        + ") and a supervisor at SCHED_FIFO " + IsoBand.SUPERVISOR + " moves them all to SCHED_OTHER "
                        + "while the ISO class's share of their CPUs, a decaying average over iso_period, is over "
                        + cpu + " %, and back when it falls under " + (cpu * 9 / 10.0) + " %"
                        + (cpu == 100 ? " (at 100 % never)" : ""));
            } else {
                changes.put("note.iso", "SCHED_ISO is absent on this kernel and this run has no ISO threads (policy "
                        + (requested == null ? "unchanged" : requested.lowerName()) + "): iso_cpu " + isoCpu
                        + " % changes nothing; RT throttling is its own setting, rt_runtime_us");
            }
        }
        if (requested != null && requested.isRealtime() && requested != SchedPolicy.ISO) {
            long period = readKernel("sched_rt_period_us");
            long rt = runtime != -2 ? runtime : readKernel("sched_rt_runtime_us");
            changes.put(RULE, requested.lowerName().toUpperCase(java.util.Locale.ROOT) + (rt < 0 ? " without throttling"
                    : " with throttling (sched_rt_runtime_us " + rt + " of sched_rt_period_us " + period + ")"));
        }
        if (runtime != -2) {
            Path global = kernel.resolve("sched_rt_runtime_us");
            if (runtime >= 0 && rootGroup != null && Files.exists(rootGroup)) {
                // RT group scheduling (cgroup v1 cpu controller): the root group's runtime may not exceed
                // the global one, so lower the group first and raise it last; closing undoes in reverse.
                long now = readKernel(global);
                long cap = Math.min(runtime, readKernel("sched_rt_period_us"));
                if (runtime < now || now < 0) {
                    sysctls.put(rootGroup, cap);
                    sysctls.put(global, runtime);
                } else {
                    sysctls.put(global, runtime);
                    sysctls.put(rootGroup, cap);
                }
            } else {
                sysctls.put(global, runtime);
            }
        }
        if (!busy.compareAndSet(false, true)) {
            throw new RtboxException("policy", "the scheduling tuner is in use by another run: one run at a time");
        }
        Handle handle = new Handle(changes);
        handle.threads = threads;
        try {
            restoreLeftovers();
            // 1. Record the originals, synced, before touching anything.
            Map<Path, Long> originals = new LinkedHashMap<>();
            for (Path f : sysctls.keySet()) {
                originals.put(f, readKernel(f));
            }
            if (!originals.isEmpty()) {
                try {
                    state.record(originals);
                } catch (IOException e) {
                    throw new RtboxException("state", "cannot record the settings to restore in " + state.path()
                            + ": " + e.getMessage() + "; nothing was changed");
                }
                handle.recorded = true;
            }
            // 2. Change them.
            for (Map.Entry<Path, Long> e : sysctls.entrySet()) {
                long old = originals.get(e.getKey());
                try {
                    Sysctl.write(e.getKey(), e.getValue());
                } catch (IOException ex) {
                    throw new RtboxException(e.getKey().getFileName().toString(), ex.getMessage());
                }
                handle.sysctls.put(e.getKey(), old);
                changes.put(e.getKey().equals(rootGroup) ? "root cpu cgroup rt_runtime_us" : e.getKey().getFileName().toString(),
                        old + " -> " + e.getValue());
            }
            int tid = Sched.gettid();
            if (niceGiven) {
                try {
                    int old = ThreadNice.get(tid);
                    ThreadNice.set(tid, nice);
                    handle.tid = tid;
                    handle.oldNice = old;
                    changes.put("nice", old + " -> " + nice + " (the run's thread; probe and load threads inherit it)");
                } catch (IOException ex) {
                    throw new RtboxException("nice", "cannot set nice " + nice + ": " + ex.getMessage());
                }
            }
            if (slack > 0) {
                long old = Sched.getTimerSlackNanos();
                Sched.setTimerSlackNanos(slack);
                handle.tid = tid;
                handle.oldSlack = old;
                changes.put("timer_slack_ns", old + " -> " + slack + " (the run's thread; threads it starts inherit "
                + "it)");
            }
            if (dma >= 0) {
                try {
                    FileOutputStream out = new FileOutputStream(dmaDevice.toFile());
                    handle.dma = out;
                    int v = (int) dma;
                    out.write(new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)});
                    out.flush();
                } catch (IOException ex) {
                    throw new RtboxException("cpu_dma_latency_us", "cannot hold " + dmaDevice + " at " + dma + " us: "
                            + ex.getMessage());
                }
                changes.put("cpu_dma_latency", "not held -> " + dma + " us");
                changes.put("note.cpu_dma_latency", dmaDevice + " held open at " + dma + " us for the run, as asked: "
                        + "CPUs stay out of idle states slower to leave than that, which lowers wake-up latency; "
                        + "closed (and the kernel's default back) when the run ends");
            }
            if (isoRule != null) {
                handle.supervisor = new IsoSupervisor(isoRule, fallbackPolicy,
                        IsoBand.rtPriority(isoPriority));
                handle.supervisor.start();
                handle.context = context;
            }
            if (context != null && !changes.isEmpty()) {
                context.event("policy", "sched: " + changes);
            }
            return handle;
        } catch (RtboxException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    private long readKernel(String name) throws RtboxException {
        return readKernel(kernel.resolve(name));
    }

    private static long readKernel(Path file) throws RtboxException {
        try {
            return Sysctl.read(file);
        } catch (IOException e) {
            throw new RtboxException(file.getFileName().toString(), "cannot read " + file + ": " + e.getMessage());
        }
    }

    /** What one run changed; closing puts it back (in reverse order) and deletes the state file. */
    private final class Handle implements PolicyHandle {
        final Map<String, String> changes;
        EffectivePolicy threads;
        final Map<Path, Long> sysctls = new LinkedHashMap<>();
        boolean recorded;
        int tid = -1;
        Integer oldNice;
        long oldSlack = -1;
        FileOutputStream dma;
        IsoSupervisor supervisor;
        /** Where the supervisor's demotions and promotions go as events, at close. */
        RunContext context;
        private boolean closed;

        Handle(Map<String, String> changes) {
            this.changes = changes;
        }

        @Override
        public Map<String, String> changes() {
            return Collections.unmodifiableMap(changes);
        }

        @Override
        public java.util.Optional<EffectivePolicy> effectivePolicy() {
            return java.util.Optional.ofNullable(threads);
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            List<String> failed = new ArrayList<>();
            try {
                if (supervisor != null) {
                    // First, so that the threads are back at the ISO band before anything else is undone.
                    supervisor.close();
                    if (context != null) {
                        supervisor.reportTransitions(context);
                    }
                    changes.put("iso.demotions", Integer.toString(supervisor.demotions()));
                    changes.put("iso.promotions", Integer.toString(supervisor.promotions()));
                    changes.put("iso.demoted_ms", Long.toString(supervisor.demotedNs() / 1_000_000));
                    changes.put("iso.mean_share_pct", String.format(java.util.Locale.ROOT, "%.1f",
                            100 * supervisor.meanShare()));
                    changes.put("iso.peak_share_pct", String.format(java.util.Locale.ROOT, "%.1f",
                            100 * supervisor.peakShare()));
                    changes.put("iso.threads", supervisor.tracked() + " on " + supervisor.cpus() + " CPU(s)");
                    changes.put("iso.transitions", supervisor.transitions());
                    if (supervisor.failure() != null) {
                        failed.add(supervisor.failure());
                    }
                    LOG.info("emulated ISO: {} demotions, {} promotions, {} ms demoted, share mean {} % peak {} %",
                            supervisor.demotions(), supervisor.promotions(), supervisor.demotedNs() / 1_000_000,
                            changes.get("iso.mean_share_pct"), changes.get("iso.peak_share_pct"));
                }
                if (dma != null) {
                    try {
                        dma.close();
                    } catch (IOException e) {
                        failed.add("close " + dmaDevice + ": " + e.getMessage());
                    }
                }
                if (tid >= 0 && tid == Sched.gettid()) {
                    if (oldSlack > 0) {
                        try {
                            Sched.setTimerSlackNanos(oldSlack);
                        } catch (OsException e) {
                            failed.add(e.getMessage());
                        }
                    }
                    if (oldNice != null) {
                        try {
                            ThreadNice.set(tid, oldNice);
                        } catch (IOException e) {
                            failed.add(e.getMessage());
                        }
                    }
                }
                List<Map.Entry<Path, Long>> list = new ArrayList<>(sysctls.entrySet());
                Collections.reverse(list);
                for (Map.Entry<Path, Long> e : list) {
                    try {
                        Sysctl.write(e.getKey(), e.getValue());
                    } catch (IOException ex) {
                        failed.add(ex.getMessage());
                    }
                }
                if (recorded && failed.isEmpty()) {
                    try {
                        state.delete();
                    } catch (IOException e) {
                        failed.add("delete " + state.path() + ": " + e.getMessage());
                    }
                }
                if (!failed.isEmpty()) {
                    LOG.warn("could not restore everything ({}); the next start tries again from {}",
                            String.join("; ", failed), state.path());
                }
            } finally {
                busy.set(false);
            }
        }
    }
}
