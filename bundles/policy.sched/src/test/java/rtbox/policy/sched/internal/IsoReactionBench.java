package rtbox.policy.sched.internal;

import java.util.Arrays;
import java.util.Locale;

import rtbox.api.SchedPolicy;
import rtbox.os.CpuClock;
import rtbox.os.Sched;

/**
 * bench/iso-reaction (issue 19): how long after the ISO class's share crosses iso_cpu the
 * emulated ISO supervisor demotes it, in sampling intervals (goal: at most 2).
 *
 * <p>One ISO thread (SCHED_RR at the band's top, pinned to the last CPU) spins and, every
 * iteration (some 10 us), reads the time and its own policy, and every 100 us its own
 * CPU-time clock, from which it keeps the exact exponential average over iso_period: the
 * moment that passes iso_cpu is the crossing, to 100 us. (The rule's own step is first
 * order: at a 10 ms tick it rises a little faster and may demote a few ms before the exact
 * crossing; the figure can then be negative.) The first iteration that finds itself at SCHED_OTHER is the
 * demotion as the thread lives it (the supervisor's decision and its sched_setscheduler,
 * both). The supervisor is handed the thread ({@code adopt}), so that its discovery by
 * the scan is not counted. Not a test (no assertion, no timing in a unit test): run by
 * bench/iso-reaction/run.sh, which prints its figures.
 */
public final class IsoReactionBench {
    private static final int ISO_CPU = 70;
    private static final long PERIOD_NS = 1_000_000_000L, FINE_NS = 100_000;

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int cpu = Sched.configuredCpus() - 1;
        System.out.printf(Locale.ROOT, "# iso_cpu %d, iso_period %d ms, one ISO spinner on CPU %d, %d trials a tick%n",
                ISO_CPU, PERIOD_NS / 1_000_000, cpu, trials);
        System.out.printf(Locale.ROOT, "%-8s %-28s %-28s%n", "tick", "reaction (ms) min/med/max", "in ticks min/med/max");
        for (long tickMs : new long[] {10, 4}) {
            double[] ms = new double[trials];
            for (int t = 0; t < trials; t++) {
                ms[t] = trial(cpu, tickMs * 1_000_000L) / 1e6;
            }
            Arrays.sort(ms);
            System.out.printf(Locale.ROOT, "%-8s %8.2f %8.2f %8.2f    %8.2f %8.2f %8.2f%n", tickMs + " ms", ms[0],
                    ms[trials / 2], ms[trials - 1], ms[0] / tickMs, ms[trials / 2] / tickMs, ms[trials - 1] / tickMs);
        }
    }

    /** One run to the first demotion: ns from the crossing to the thread finding itself demoted. */
    private static long trial(int cpu, long tickNs) throws Exception {
        IsoSupervisor s = new IsoSupervisor(new IsoRule(ISO_CPU, PERIOD_NS, tickNs), SchedPolicy.RR, IsoBand.HIGH);
        long[] result = new long[2];
        Thread spinner = new Thread(() -> {
            try {
                Sched.setAffinity(0, cpu);
                Sched.setScheduler(0, SchedPolicy.RR, IsoBand.HIGH);
                int tid = Sched.gettid();
                CpuClock clock = CpuClock.ofThread(tid);
                double share = 0;
                s.adopt(tid);
                long lastT = System.nanoTime(), lastCpu = clock.nanos(), crossed = 0;
                long deadline = lastT + 10 * PERIOD_NS;
                while (true) {
                    long now = System.nanoTime();
                    if (now - lastT >= FINE_NS) {
                        long c = clock.nanos();
                        // The exact exponential average, not the rule's first-order step: the true crossing.
                        double decay = Math.exp(-(now - lastT) / (double) PERIOD_NS);
                        share = share * decay + (c - lastCpu) / (double) (now - lastT) * (1 - decay);
                        if (crossed == 0 && share > ISO_CPU / 100.0) {
                            crossed = now;
                        }
                        lastT = now;
                        lastCpu = c;
                    }
                    if (result[1] == 0 && Sched.getScheduler(0) == SchedPolicy.OTHER) {
                        result[1] = System.nanoTime();
                    }
                    // Demoted before the exact crossing (the supervisor's coarser steps rise a
                    // little faster): spin on, as SCHED_OTHER alone on the CPU, until it comes.
                    if ((result[1] != 0 && crossed != 0) || now > deadline) {
                        result[0] = crossed;
                        return;
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "iso-reaction-spinner");
        s.start();
        spinner.start();
        spinner.join();
        s.close();
        if (result[0] == 0 || result[1] == 0) {
            throw new IllegalStateException("no demotion within 10 iso_periods, or demoted before the crossing: "
                    + s.failure());
        }
        return result[1] - result[0];
    }
}
