package rtbox.cli.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The self test's foreign disturber: the main class of a separate JVM, so that the
 * disturbance comes from a process that is not rtbox, as a stray real-time task on a
 * customer's machine would. Its spinning thread is called "disturber" (the kernel's
 * name for it, comm); it prints its thread id, waits until the parent has put it at
 * SCHED_FIFO on the probe's CPU and says "go", then spins {@code spinUs} every
 * {@code everyMs} and reports each spin's CLOCK_MONOTONIC start and end
 * ({@code spin START END}) until its input closes. The spinner only stores the times;
 * a thread at normal priority prints them, so that the disturbance is the spin and
 * nothing else. Only java.base and no nested classes: the parent runs it from this one
 * class file.
 */
public final class DisturberProcess implements Runnable {
    static final String THREAD = "disturber";
    private static final Object LOCK = new Object();
    private static boolean go;
    private static final int KEPT = 1024;
    private static final long[] TIMES = new long[2 * KEPT];
    private static volatile int spun;
    private final long spinNs, periodNs;
    private final boolean printer;

    private DisturberProcess(long spinNs, long periodNs, boolean printer) {
        this.spinNs = spinNs;
        this.periodNs = periodNs;
        this.printer = printer;
    }

    public static void main(String[] args) throws Exception {
        long spinNs = Long.parseLong(args[0]) * 1000, periodNs = Long.parseLong(args[1]) * 1_000_000;
        Thread t = new Thread(new DisturberProcess(spinNs, periodNs, false), THREAD);
        t.setDaemon(true);
        t.start();
        Thread p = new Thread(new DisturberProcess(spinNs, periodNs, true), "printer");
        p.setDaemon(true);
        p.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if ("go".equals(in.readLine())) {
            synchronized (LOCK) {
                go = true;
                LOCK.notifyAll();
            }
            // The parent closes our input to end us.
            while (in.readLine() != null) {
                // nothing else comes
            }
        }
        System.exit(0);
    }

    @Override
    public void run() {
        if (printer) {
            print();
            return;
        }
        PrintStream out = System.out;
        try {
            // /proc/thread-self -> "PID/task/TID"
            String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            out.println("tid " + self.substring(self.lastIndexOf('/') + 1));
            out.flush();
            synchronized (LOCK) {
                while (!go) {
                    LOCK.wait();
                }
            }
        } catch (Exception e) {
            out.println("error " + e);
            out.flush();
            return;
        }
        long next = System.nanoTime() + periodNs;
        while (true) {
            long now;
            while ((now = System.nanoTime()) < next) {
                java.util.concurrent.locks.LockSupport.parkNanos(next - now);
            }
            long start = now;
            long end = start + spinNs;
            long t = start;
            while (t < end) {
                t = System.nanoTime();
            }
            int i = spun % KEPT;
            TIMES[2 * i] = start;
            TIMES[2 * i + 1] = t;
            spun = spun + 1;
            next += periodNs;
        }
    }

    /** Prints the spins stored since the last look, every 20 ms. */
    private void print() {
        int printed = 0;
        while (true) {
            int n = spun;
            for (; printed < n; printed++) {
                int i = printed % KEPT;
                System.out.println("spin " + TIMES[2 * i] + " " + TIMES[2 * i + 1]);
            }
            System.out.flush();
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
        }
    }
}
