package rtbox.probe.tsc.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Component;

import rtbox.api.Probe;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ProbeResult;
import rtbox.core.toolkit.ParameterChecks;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RtThrottling;
import rtbox.os.MemoryLock;
import rtbox.os.OsException;
import rtbox.os.Tsc;

/**
 * The TSC busy-wait jitter probe (seed 000): for a sweep of wait lengths, busy-wait on
 * the CPU's time stamp counter and measure the overshoot with CLOCK_MONOTONIC. Its
 * latency is the overshoot: min/avg/max jitter and a histogram. A FIFO busy loop is
 * exactly what RT throttling stops, so stalls of period - runtime once a period are
 * labelled "RT throttling" with the settings that cause them.
 *
 * <p>Options ({@code -o name=value}): {@code from}, {@code to}, {@code step} in
 * microseconds (default 10..10000 in 10 us steps). Without -l or -D the probe runs
 * one sweep (about 5 s at the defaults); -l counts waits, -D bounds the time and
 * repeats the sweep.
 */
@Component(service = Probe.class, property = Probe.NAME + "=tsc")
public class TscProbe implements Probe {

    @Override
    public void validate(RunParameters p) throws RtboxException {
        Sweep.of(p);
        ParameterChecks.common(p);
        ParameterChecks.noBreakNorSamples("tsc", p);
    }

    @Override
    public ProbeResult run(RunParameters p, RunContext context) throws RtboxException {
        validate(p);
        Sweep sweep = Sweep.of(p);
        List<String> notes = new ArrayList<>();
        boolean locked = false;
        try (Tsc tsc = Tsc.open()) {
            if (p.lockMemory) {
                MemoryLock.lockAll();
                locked = true;
                notes.add("memory locked with mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)");
            }
            return measure(p, sweep, tsc, context, notes);
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

    private ProbeResult measure(RunParameters p, Sweep sweep, Tsc tsc, RunContext context, List<String> notes)
            throws RtboxException {
        RtThrottling.Settings throttling = RtThrottling.Settings.read();
        CountDownLatch warm = new CountDownLatch(p.cpus.length);
        CountDownLatch go = new CountDownLatch(1);
        List<TscThread> threads = new ArrayList<>();
        for (int i = 0; i < p.cpus.length; i++) {
            threads.add(new TscThread(i, p.cpus[i], p, sweep, tsc, warm, go));
        }
        threads.forEach(Thread::start);
        long startNanos;
        try {
            while (!warm.await(100, TimeUnit.MILLISECONDS)) {
                if (context.stopRequested()) {
                    threads.forEach(TscThread::requestStop);
                }
            }
            startNanos = System.nanoTime() + 1_000_000;
            for (TscThread t : threads) {
                t.startNanos = startNanos;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            threads.forEach(TscThread::requestStop);
            throw new RtboxException("run", "interrupted during warm-up");
        } finally {
            go.countDown();
        }
        long expectedNs = p.durationNs > 0 ? p.durationNs : p.loops > 0 ? 0 : sweep.sweepNs();
        boolean stopped = false;
        while (threads.stream().anyMatch(Thread::isAlive)) {
            if (!stopped && context.stopRequested()) {
                threads.forEach(TscThread::requestStop);
                stopped = true;
            }
            if (expectedNs > 0) {
                context.progress(Math.min(1.0, (System.nanoTime() - startNanos) / (double) expectedNs));
            }
            for (TscThread t : threads) {
                try {
                    t.join(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    threads.forEach(TscThread::requestStop);
                    stopped = true;
                }
            }
        }
        long durationNs = System.nanoTime() - startNanos;
        List<ThreadResult> results = new ArrayList<>();
        long throttled = 0;
        long waits = 0;
        for (TscThread t : threads) {
            if (t.failure() instanceof RtboxException e) {
                throw e;
            }
            ThreadResult r = t.result();
            if (r == null) {
                continue;
            }
            SchedPolicy policy = p.policy;
            List<Spike> spikes = RtThrottling.label(r.spikes(), policy, throttling, durationNs);
            throttled += spikes.stream().filter(s -> RtThrottling.CAUSE.equals(s.cause())).count();
            waits += t.waits();
            results.add(r.withSpikes(spikes));
        }
        if (stopped) {
            notes.add("stopped early on request");
        }
        String flags = Tsc.cpuFlags();
        if (tsc.isTsc()) {
            notes.add(String.format(java.util.Locale.ROOT, "clock: busy-wait on the TSC (rdtsc) calibrated at %.0f Hz "
                    + "against CLOCK_MONOTONIC (spread %.2e); overshoot measured with CLOCK_MONOTONIC; call path: %s",
                    tsc.hz(), tsc.calibrationSpread(), tsc.callPath()));
            String warning = Tsc.invarianceWarning(flags);
            if (warning != null) {
                notes.add(warning);
            }
        } else {
            notes.add("clock: busy-wait on CLOCK_MONOTONIC, not the TSC: " + tsc.fallbackReason());
        }
        notes.add("latency = overshoot of each busy-wait: monotonic time elapsed - wait length; sweep " + sweep);
        if (throttled > 0) {
            notes.add(throttled + " stall(s) labelled RT throttling: " + throttling.describe());
        } else if (p.policy.isRealtime() && throttling != null && throttling.on() && durationNs
                > throttling.runtimeUs() * 1000) {
            notes.add("RT throttling is on (" + throttling.describe() + ") but stopped no measurement");
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("tsc_hz", tsc.hz());
        figures.put("tsc_used", tsc.isTsc() ? 1.0 : 0.0);
        figures.put("sweep_from_us", (double) sweep.fromUs());
        figures.put("sweep_to_us", (double) sweep.toUs());
        figures.put("sweep_step_us", (double) sweep.stepUs());
        figures.put("waits", (double) waits);
        figures.put("rt_throttling_stalls", (double) throttled);
        if (throttling != null) {
            figures.put("sched_rt_runtime_us", (double) throttling.runtimeUs());
            figures.put("sched_rt_period_us", (double) throttling.periodUs());
        }
        String clock = tsc.isTsc() ? String.format(java.util.Locale.ROOT, "%s at %.0f Hz; overshoot by CLOCK_MONOTONIC",
                Tsc.CLOCK_TSC, tsc.hz()) : Tsc.CLOCK_MONOTONIC;
        return new ProbeResult("tsc", p + " sweep=" + sweep, clock, startNanos, durationNs, !stopped, results,
                figures, notes);
    }
}
