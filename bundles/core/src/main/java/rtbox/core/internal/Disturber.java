package rtbox.core.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.SchedPolicy;
import rtbox.api.Workload;
import rtbox.api.WorkloadHandle;
import rtbox.core.toolkit.BusyWindows;
import rtbox.core.toolkit.Parameters;
import rtbox.os.MonotonicClock;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * A known disturbance, for proving the measuring chain ({@code rtbox selftest}): a
 * thread at SCHED_FIFO on one CPU that spins for {@code spin-us} every
 * {@code every-ms}. A probe on that CPU at a lower priority must see one spike of
 * about spin-us per period, and the runner must attribute it to this workload from
 * the busy windows it records.
 */
@Component(service = Workload.class, property = Workload.NAME + "=disturber")
public class Disturber implements Workload {
    /** Windows kept; a 10-minute self test at 10 Hz fits. */
    static final int MAX_WINDOWS = 8192;

    @Override
    public WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException {
        Parameters p = new Parameters("disturber", null, parameters)
                .only(parameters, java.util.List.of("cpu", "priority", "spin-us", "every-ms"));
        int cpu = (int) p.integer("cpu", 0, 0, Sched.configuredCpus() - 1);
        int priority = (int) p.integer("priority", 90, 1, 99);
        long spinNs = p.integer("spin-us", 2000, 1, 1_000_000) * 1000L;
        long periodNs = p.integer("every-ms", 100, 1, 60_000) * 1_000_000L;
        if (spinNs >= periodNs) {
            throw new RtboxException("spin-us", "spin " + spinNs / 1000 + " us must be shorter than the period "
                    + periodNs / 1000 + " us");
        }
        Running r = new Running(cpu, priority, spinNs, periodNs);
        r.thread.start();
        return r;
    }

    static final class Running implements WorkloadHandle, BusyWindows {
        final Thread thread;
        private final long[] windows = new long[2 * MAX_WINDOWS];
        private volatile int count;
        private volatile boolean stop;
        private volatile String failure;

        Running(int cpu, int priority, long spinNs, long periodNs) {
            thread = new Thread(() -> loop(cpu, priority, spinNs, periodNs), "rtbox-disturber");
            thread.setDaemon(true);
        }

        private void loop(int cpu, int priority, long spinNs, long periodNs) {
            try {
                Sched.setAffinity(0, cpu);
                Sched.setTimerSlackNanos(1);
                Sched.setScheduler(0, SchedPolicy.FIFO, priority);
            } catch (OsException e) {
                failure = e.getMessage();
                return;
            }
            MonotonicClock clock = new MonotonicClock();
            long next = System.nanoTime() + periodNs;
            while (!stop) {
                clock.sleepUntil(next);
                long start = System.nanoTime();
                long end = start + spinNs;
                long now = start;
                while (now < end) {
                    now = System.nanoTime();
                }
                int i = count % MAX_WINDOWS;
                windows[2 * i] = start;
                windows[2 * i + 1] = now;
                count = count + 1;
                next += periodNs;
            }
        }

        @Override
        public boolean active() {
            int n = count;
            return n > 0 && System.nanoTime() <= windows[2 * ((n - 1) % MAX_WINDOWS) + 1];
        }

        @Override
        public long[] busyWindows() {
            int n = count;
            if (n <= MAX_WINDOWS) {
                return Arrays.copyOf(windows, 2 * n);
            }
            return windows.clone();
        }

        @Override
        public Map<String, Double> stop() {
            stop = true;
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Map<String, Double> f = new LinkedHashMap<>();
            f.put("spins", (double) count);
            if (failure != null) {
                f.put("failed", 1.0);
            }
            return f;
        }
    }
}
