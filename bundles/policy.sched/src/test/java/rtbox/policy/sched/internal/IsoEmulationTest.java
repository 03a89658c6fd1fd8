package rtbox.policy.sched.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.api.PolicyHandle;
import rtbox.api.SchedPolicy;
import rtbox.os.Procfs;
import rtbox.os.Sched;

/**
 * Emulated SCHED_ISO with the real syscalls (root): on one CPU, a thread in the ISO band
 * spinning against a SCHED_OTHER spinner. At iso@70 the ISO thread's share over the last
 * 15 of 20 s must lie between 90 % of the limit and the limit (63 to 70 %, +/- 3 points)
 * and the normal thread must get at least 25 %; at iso@100 the ISO thread keeps at least
 * 90 %. The ISO thread is back at its ISO band policy after the run. The figures are
 * printed for the README.
 */
class IsoEmulationTest {
    /** The CPU both spinners share: the last one, away from CPU 0's interrupts. */
    static final int CPU = Sched.configuredCpus() - 1;

    @TempDir
    Path dir;

    /** A thread that spins and notes the longest gap in its own progress. */
    static final class Spinner extends Thread {
        final SchedPolicy policy;
        final int priority;
        final CountDownLatch ready = new CountDownLatch(1);
        volatile int tid;
        volatile boolean stop;
        volatile long longestGapNs;
        volatile boolean measureGap;

        Spinner(String name, SchedPolicy policy, int priority) {
            super(name);
            this.policy = policy;
            this.priority = priority;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                tid = Sched.gettid();
                Sched.setAffinity(0, CPU);
                Sched.setScheduler(0, policy, priority);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                ready.countDown();
            }
            long prev = System.nanoTime();
            long longest = 0;
            while (!stop) {
                long now = System.nanoTime();
                if (measureGap && now - prev > longest) {
                    longest = now - prev;
                    longestGapNs = longest;
                }
                prev = now;
            }
        }
    }

    /** Busy time of the shared CPU so far in ns, from /proc/stat (user, nice, system, irq, softirq; USER_HZ 100). */
    static long cpuBusyNs() throws Exception {
        for (String line : Procfs.lines("/proc/stat")) {
            if (line.startsWith("cpu" + CPU + " ")) {
                String[] f = line.trim().split("\\s+");
                long ticks = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                        + Long.parseLong(f[7]);
                return ticks * 10_000_000L;
            }
        }
        throw new IllegalStateException("no cpu" + CPU + " in /proc/stat");
    }

    record Shares(double iso, double normal, double others, long isoLongestGapMs, long normalLongestGapMs, Map<String, String> changes,
            SchedPolicy isoPolicyAfter) {
    }

    private Shares run(int isoCpu, long warmupMs, long measureMs) throws Exception {
        return run(Map.of("policy", "iso", "iso_cpu", Integer.toString(isoCpu)), "iso@" + isoCpu, warmupMs, measureMs);
    }

    private Shares run(Map<String, String> settings, String label, long warmupMs, long measureMs) throws Exception {
        SchedTuner t = new SchedTuner();
        t.stateFile(dir.resolve("state-" + label.replace('@', '-')));
        Spinner iso;
        Spinner normal;
        Map<String, String> changes;
        double isoShare;
        double normalShare;
        double othersShare;
        SchedPolicy after;
        PolicyHandle h = t.apply(settings, null);
        try {
            rtbox.api.EffectivePolicy eff = h.effectivePolicy().get();
            // As the runner does: the ISO threads start at the tuner's effective policy.
            iso = new Spinner("iso-spinner", eff.policy(), eff.priority());
            normal = new Spinner("normal-spinner", SchedPolicy.OTHER, 0);
            iso.start();
            normal.start();
            iso.ready.await();
            normal.ready.await();
            Thread.sleep(warmupMs); // fixed: the rule's history fills (a time, not a state)
            long isoStart = Procfs.schedstatRuntimeNs(iso.tid);
            long normalStart = Procfs.schedstatRuntimeNs(normal.tid);
            long busyStart = cpuBusyNs();
            long t0 = System.nanoTime();
            iso.measureGap = true;
            normal.measureGap = true;
            Thread.sleep(measureMs); // fixed: the window the shares are measured over
            long wall = System.nanoTime() - t0;
            long busy = cpuBusyNs() - busyStart;
            isoShare = (Procfs.schedstatRuntimeNs(iso.tid) - isoStart) / (double) wall;
            normalShare = (Procfs.schedstatRuntimeNs(normal.tid) - normalStart) / (double) wall;
            othersShare = Math.max(0, busy / (double) wall - isoShare - normalShare);
        } finally {
            h.close();
        }
        try {
            after = Sched.getScheduler(iso.tid);
        } finally {
            iso.stop = true;
            normal.stop = true;
            iso.join();
            normal.join();
        }
        changes = h.changes();
        Shares s = new Shares(isoShare, normalShare, othersShare, iso.longestGapNs / 1_000_000, normal.longestGapNs / 1_000_000,
                changes, after);
        System.out.printf(java.util.Locale.ROOT, "%s on CPU %d: ISO thread %.1f %%, normal thread %.1f %%, other tasks %.1f %%, longest "
                + "waits %d ms (ISO) and %d ms (normal); %s%n", label, CPU, 100 * isoShare, 100 * normalShare, 100 * othersShare,
                s.isoLongestGapMs(), s.normalLongestGapMs(), changes.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("iso.")).map(e -> e.getKey() + "=" + e.getValue())
                        .reduce((a, b) -> a + ", " + b).orElse(""));
        return s;
    }

    @Test
    void atIso70TheIsoThreadIsHeldBetween63And70PercentAndTheNormalThreadRuns() throws Exception {
        // 25 s, not the issue's 20: from an empty history at 95 % (RT throttling's cap) the
        // average over a 5 s iso_period reaches 70 % after 5 s * ln(1 / (1 - 70/95)) = 6.7 s, so
        // the last 15 s of 20 would hold 1.7 s of that first climb.
        Shares s = run(70, 10_000, 15_000);
        assertTrue(s.iso() >= 0.60 && s.iso() <= 0.73, "ISO thread's share over the last 15 s: " + s.iso());
        if (s.others() <= 0.05) {
            assertTrue(s.normal() >= 0.25, "normal thread's share: " + s.normal());
        } else {
            // Other work on the CPU (a build beside this test) shares the normal tasks' part with
            // the normal spinner: then what the normal tasks got together is what can be asked.
            System.out.println("the CPU was busy with other tasks: the normal thread's 25 % is checked with theirs");
            assertTrue(s.normal() + s.others() >= 0.25, "normal tasks' share: " + (s.normal() + s.others()));
        }
        assertTrue(Integer.parseInt(s.changes().get("iso.demotions")) >= 1, s.changes().toString());
        assertTrue(Integer.parseInt(s.changes().get("iso.promotions")) >= 1, s.changes().toString());
        assertEquals("1 on 1 CPU(s)", s.changes().get("iso.threads"));
        assertEquals(SchedPolicy.RR, s.isoPolicyAfter(), "back at the ISO band's policy after the run");
    }

    @Test
    void atIso100TheIsoThreadIsNeverDemoted() throws Exception {
        Shares s = run(100, 1000, 5000);
        assertTrue(s.iso() >= 0.90, "ISO thread's share: " + s.iso());
        assertEquals("0", s.changes().get("iso.demotions"));
        assertEquals(SchedPolicy.RR, s.isoPolicyAfter());
    }

    /**
     * The rule ISO used to be stood in for by, side by side in figures: the same thread at RR 1
     * with RT throttling at 70 % (rt_runtime_us), which stops it for 300 ms of every second
     * instead of demoting it. Only its own limits are checked; the waits are printed.
     */
    @Test
    void throttlingAt70StopsTheRtThreadInsteadOfDemotingIt() throws Exception {
        long period = Sysctl.read(Path.of("/proc/sys/kernel/sched_rt_period_us"));
        long before = Sysctl.read(Path.of("/proc/sys/kernel/sched_rt_runtime_us"));
        Shares s = run(Map.of("policy", "rr", "priority", "1", "rt_runtime_us", Long.toString(period * 70 / 100)),
                "rr:1 throttled at 70 %", 1000, 5000);
        assertTrue(s.iso() >= 0.63 && s.iso() <= 0.73, "throttled RT thread's share: " + s.iso());
        assertTrue(s.isoLongestGapMs() >= 250, "stopped for the rest of each period: " + s.isoLongestGapMs() + " ms");
        assertEquals(before, Sysctl.read(Path.of("/proc/sys/kernel/sched_rt_runtime_us")));
    }
}
