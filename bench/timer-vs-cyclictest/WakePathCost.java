import java.util.Arrays;
import java.util.Locale;

import rtbox.api.SchedPolicy;
import rtbox.os.Sched;
import rtbox.os.WakeStamp;

/**
 * The wake-up path's own cost, measured at real wake-ups (1 ms, the CPU and priority of the
 * run): each arm sleeps to absolute deadlines and takes its stamps as the timer probe does.
 *
 *   native   WakeStamp as the probe uses it (clock_nanosleep, then glibc's clock_gettime in
 *            one machine-code sequence), with a second stamp right after the first
 *            (second - first: what one clock read costs at a wake-up, the only part of the
 *            path that is the probe's) and System.nanoTime() on return to Java (nanoTime -
 *            first stamp: what the JNA path added before its stamp)
 *   syscall  the same with the clock_gettime system call as the clock read
 *   jna      JNA's clock_nanosleep, then System.nanoTime() (the path before issue 37), with a
 *            second nanoTime right after (what its clock read costs)
 *
 * Arms alternate in blocks of 1000 wake-ups. Figures in ns: median, p90, mean.
 *   java -cp rtbox.os.jar:rtbox.api.jar:jna.jar WakePathCost.java [seconds per arm] [cpu] [priority]
 */
public class WakePathCost {
    public static void main(String[] a) throws Exception {
        int seconds = a.length > 0 ? Integer.parseInt(a[0]) : 5;
        int cpu = a.length > 1 ? Integer.parseInt(a[1]) : 1;
        int prio = a.length > 2 ? Integer.parseInt(a[2]) : 99;
        Sched.setAffinity(0, cpu);
        Sched.setTimerSlackNanos(1);
        Sched.setScheduler(0, SchedPolicy.FIFO, prio);
        // As cyclictest and rtbox run do: no deep idle state while measuring (held while the file is open).
        java.io.FileOutputStream dma = new java.io.FileOutputStream("/dev/cpu_dma_latency");
        dma.write(new byte[4]);
        dma.flush();
        WakeStamp[] arms = {WakeStamp.sleeper(), WakeStamp.sleeper(WakeStamp.Clock.SYSCALL),
            WakeStamp.jnaSleeper("the bench's JNA arm")};
        String[] names = {"native", "syscall", "jna"};
        int per = seconds * 1000, block = 1000;
        long[][] late = new long[3][per], stamp = new long[3][per], back = new long[3][per];
        for (WakeStamp w : arms) {
            w.stampTwice(true);
            // Warm-up: the JIT compiles this loop before anything is kept.
            long next = System.nanoTime() + 100_000;
            for (int i = 0; i < 20_000; i++, next += 50_000) {
                w.sleepUntil(next);
            }
        }
        int[] n = new int[3];
        long next = System.nanoTime() + 1_000_000;
        while (n[2] < per) {
            for (int k = 0; k < 3; k++) {
                WakeStamp w = arms[k];
                for (int i = 0; i < block && n[k] < per; i++, n[k]++) {
                    w.sleepUntil(next);
                    long now = System.nanoTime();
                    late[k][n[k]] = w.stampNanos() - next;
                    stamp[k][n[k]] = w.secondStampNanos() - w.stampNanos();
                    back[k][n[k]] = now - w.stampNanos();
                    next += 1_000_000;
                    if (now >= next) {
                        next = now + 1_000_000 - (now - next) % 1_000_000;
                    }
                }
            }
        }
        System.out.println("wake-up path, ns (median / p90 / mean) over " + per + " wake-ups an arm, CPU " + cpu
                + ", FIFO " + prio + ":");
        for (int k = 0; k < 3; k++) {
            System.out.printf(Locale.ROOT, "  %-8s latency %s | second stamp - first %s | back in Java - first %s%n",
                    names[k], fig(late[k]), fig(stamp[k]), k == 2 ? "(the stamp is taken there)" : fig(back[k]));
            System.out.println("           path: " + arms[k].path());
            arms[k].close();
        }
        dma.close();
    }

    static String fig(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        double mean = Arrays.stream(s).average().orElse(0);
        return String.format(Locale.ROOT, "%d / %d / %.0f", s[s.length / 2], s[(int) (s.length * 0.9)], mean);
    }
}
