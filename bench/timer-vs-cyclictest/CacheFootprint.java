import java.util.Arrays;

import rtbox.api.SchedPolicy;
import rtbox.os.Sched;
import rtbox.os.WakeStamp;

/**
 * What a measuring loop's memory footprint between wake-ups does to the next wake-up: the probe's
 * wake-up sequence (WakeStamp) at 1 ms, FIFO 99, CPU 1, cpu_dma_latency 0, touching 0, 32, 256 or
 * 1024 KB (a byte every 64) after each wake-up, the four alternated in blocks of 500 wake-ups.
 *   java -cp rtbox.os classes:rtbox.api classes:jna.jar CacheFootprint.java
 */
public class CacheFootprint {
    public static void main(String[] a) throws Exception {
        Sched.setAffinity(0, 1); Sched.setTimerSlackNanos(1); Sched.setScheduler(0, SchedPolicy.FIFO, 99);
        java.io.FileOutputStream dma = new java.io.FileOutputStream("/dev/cpu_dma_latency"); dma.write(new byte[4]); dma.flush();
        WakeStamp w = WakeStamp.sleeper();
        int[] kbs = {0, 32, 256, 1024};
        byte[] mem = new byte[1024 * 1024];
        int per = 4000, block = 500;
        long[][] late = new long[kbs.length][per];
        long sink = 0;
        long next = System.nanoTime() + 100_000;
        for (int i = 0; i < 20000; i++, next += 50_000) w.sleepUntil(next);
        int[] n = new int[kbs.length];
        next = System.nanoTime() + 1_000_000;
        while (n[kbs.length - 1] < per) {
            for (int k = 0; k < kbs.length; k++) {
                for (int i = 0; i < block && n[k] < per; i++, n[k]++) {
                    w.sleepUntil(next);
                    late[k][n[k]] = w.stampNanos() - next;
                    int bytes = kbs[k] * 1024;
                    for (int j = 0; j < bytes; j += 64) { mem[j]++; }
                    next += 1_000_000;
                    long now = System.nanoTime();
                    if (now >= next) next = now + 1_000_000 - (now - next) % 1_000_000;
                }
            }
        }
        for (int k = 0; k < kbs.length; k++) {
            long[] s = late[k].clone(); Arrays.sort(s);
            System.out.printf("touch %4d KB after each wake-up: latency median %d ns, p90 %d, mean %.0f%n", kbs[k], s[per / 2], s[(int) (per * 0.9)], Arrays.stream(s).average().orElse(0));
        }
        dma.close();
    }
}
