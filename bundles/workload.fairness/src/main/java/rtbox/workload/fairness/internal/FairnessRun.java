package rtbox.workload.fairness.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import rtbox.api.RtboxException;
import rtbox.api.WorkloadHandle;
import rtbox.os.CpuClock;
import rtbox.os.OsException;
import rtbox.os.Sched;
import rtbox.os.ThreadSettings;

/**
 * The running workers and disturber. A round's work is held at its CPU time, read from the
 * thread's own CPU-time clock between chunks of about a quarter of a millisecond of steps, so a
 * stop is seen within about that. Why CPU time and not the calibrated count of steps alone: the
 * JIT replaces the loop's code while it runs (its profiled code ran 0.6x as fast as the final
 * code here), so a count calibrated on the earlier code made "8 ms" of work 5.6 ms in a CI run,
 * and its workers did 1.4x more rounds than two CPUs can run. A worker the scheduler holds back
 * still completes fewer rounds: preempted, it runs no CPU time.
 */
final class FairnessRun implements WorkloadHandle {
    static final String THREAD_PREFIX = "rtbox-fairness-";
    /** Steps between two reads of the thread's CPU time: about this share of a millisecond. */
    private static final long CHUNKS_PER_MS = 4;

    private final int workers;
    private final long workNs, sleepNs, disturberMaxNs, perMs;
    private final ThreadSettings workerSettings, disturberSettings;
    private final Thread[] threads;
    private final long[] loops;
    private final CountDownLatch ready;
    private volatile boolean stop;
    private volatile String error;
    private long startNs, endNs;

    FairnessRun(int workers, long workNs, long sleepNs, ThreadSettings ws, ThreadSettings ds, long disturberMaxNs,
            long perMs) {
        this.workers = workers;
        this.workNs = workNs;
        this.sleepNs = sleepNs;
        this.workerSettings = ws;
        this.disturberSettings = ds;
        this.disturberMaxNs = disturberMaxNs;
        this.perMs = perMs;
        int n = workers + (ds != null ? 1 : 0);
        this.threads = new Thread[n];
        this.loops = new long[n];
        this.ready = new CountDownLatch(n);
    }

    void start() throws RtboxException {
        for (int i = 0; i < threads.length; i++) {
            final int index = i;
            boolean disturber = i == workers;
            threads[i] = new Thread(() -> loop(index, disturber), THREAD_PREFIX + (disturber ? "disturber" : "" + i));
            threads[i].setDaemon(true);
        }
        startNs = System.nanoTime();
        for (Thread t : threads) {
            t.start();
        }
        try {
            ready.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (error != null) {
            String why = error;
            stop();
            throw new RtboxException("policy", "fairness: cannot set the scheduling asked: " + why);
        }
    }

    private void loop(int index, boolean disturber) {
        CpuClock cpu = null;
        try {
            (disturber ? disturberSettings : workerSettings).applyToCurrentThread();
            cpu = CpuClock.ofThread(Sched.gettid());
        } catch (OsException e) {
            error = e.getMessage();
            stop = true;
        }
        ready.countDown();
        long chunk = Math.max(1, perMs / CHUNKS_PER_MS);
        long work = workNs, sleep = sleepNs;
        long n = 0, x = index + 1;
        while (!stop) {
            long until = cpu.nanos() + work, now;
            do {
                x = Spin.run(chunk, x);
                now = cpu.nanos();
            } while (!stop && now < until && now >= 0);
            if (now < 0) {
                error = "the thread's CPU-time clock cannot be read";
                stop = true;
            }
            if (stop) {
                break;
            }
            sleep(sleep);
            n++;
            if (disturber) {
                // As in the seed's RT job: work and sleep grow by 1 ms a round, then start again.
                work += 1_000_000L;
                sleep += 1_000_000L;
                if (work > disturberMaxNs) {
                    work = workNs;
                    sleep = sleepNs;
                }
            }
        }
        Spin.sink = x;
        loops[index] = n;
    }

    private void sleep(long ns) {
        long end = System.nanoTime() + ns;
        long left = ns;
        while (left > 0 && !stop) {
            LockSupport.parkNanos(Math.min(left, 10_000_000L));
            left = end - System.nanoTime();
        }
    }

    @Override
    public boolean active() {
        return !stop;
    }

    @Override
    public Map<String, Double> stop() {
        stop = true;
        long deadline = System.nanoTime() + 90_000_000L;
        for (Thread t : threads) {
            if (t == null) {
                continue;
            }
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        endNs = System.nanoTime();
        return figures();
    }

    Map<String, Double> figures() {
        Map<String, Double> f = new LinkedHashMap<>();
        long min = Long.MAX_VALUE, max = 0, sum = 0;
        for (int i = 0; i < workers; i++) {
            min = Math.min(min, loops[i]);
            max = Math.max(max, loops[i]);
            sum += loops[i];
        }
        double mean = (double) sum / workers;
        f.put("elapsed_s", (endNs - startNs) / 1e9);
        f.put("workers", (double) workers);
        f.put("loops_min", (double) min);
        f.put("loops_max", (double) max);
        f.put("loops_mean", mean);
        f.put("spread", (double) (max - min));
        f.put("relative_error", mean > 0 ? (max - min) / mean : 0);
        for (int i = 0; i < workers; i++) {
            f.put("worker_" + i + "_loops", (double) loops[i]);
        }
        if (disturberSettings != null) {
            f.put("disturber_loops", (double) loops[workers]);
        }
        f.put("steps_per_ms", (double) perMs);
        f.put("errors", error == null ? 0.0 : 1.0);
        return f;
    }
}
