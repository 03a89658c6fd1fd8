package rtbox.cli.internal;

import java.io.IOException;
import java.io.OutputStream;

import rtbox.api.LiveThread;

/**
 * cyclictest's {@code -v}: every sample on stdout as {@code %8d:%8d:%8d}, the thread's
 * index, the cycle (from 0) and the latency in us. As in cyclictest, the measuring threads
 * only put each sample into a preallocated ring ({@link LiveThread#sampleNs}); this printer,
 * a thread of its own, drains the rings every {@link #PERIOD_MS} ms. It formats into one
 * preallocated byte buffer and writes that: no allocation per sample, so printing does not
 * fill the heap and bring on the garbage collections that would pause the measuring
 * threads. Nothing waits for it: a sample overwritten before it was printed (the printer
 * more than a ring behind, e.g. on a slow terminal) is counted in {@link #lost()}, never
 * printed under a wrong number.
 */
final class SamplePrinter {
    static final long PERIOD_MS = 10;
    /** Room for the longest line: three 19-digit fields and their separators. */
    private static final int LINE = 64;

    private final OutputStream out;
    /** Replaced whole on add (before measuring); read without an iterator, so draining allocates nothing. */
    private volatile LiveThread[] threads = new LiveThread[0];
    private final long[] next = new long[1024];
    private final long[] lost = new long[1024];
    private final byte[] buffer = new byte[64 * 1024];
    private int length;
    private volatile boolean done;
    private Thread thread;

    SamplePrinter(OutputStream out) {
        this.out = out;
    }

    /** A measuring thread whose samples to print (announced before it measures). */
    void add(LiveThread t) {
        if (t.thread() < next.length) {
            synchronized (this) {
                LiveThread[] more = java.util.Arrays.copyOf(threads, threads.length + 1);
                more[more.length - 1] = t;
                threads = more;
            }
        }
    }

    void start() {
        thread = new Thread(() -> {
            while (!done) {
                drain();
                try {
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rtbox-samples");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the thread and prints what is left. */
    void finish() {
        done = true;
        if (thread != null) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        drain();
    }

    /** Prints every sample measured since the last call, thread by thread; returns the lines printed. */
    int drain() {
        int printed = 0;
        for (LiveThread t : threads) {
            int i = t.thread();
            long upTo = t.cycles();
            for (long c = next[i]; c < upTo; c++) {
                long v = t.sampleNs(c);
                if (v < 0) {
                    lost[i]++;
                    continue;
                }
                line(i, c, (v + 500) / 1000);
                printed++;
            }
            next[i] = Math.max(next[i], upTo);
        }
        flush();
        return printed;
    }

    /** Samples that were overwritten before they could be printed, all threads. */
    long lost() {
        long n = 0;
        for (long l : lost) {
            n += l;
        }
        return n;
    }

    private void line(int thread, long cycle, long us) {
        if (length + LINE > buffer.length) {
            flush();
        }
        field(thread, ':');
        field(cycle, ':');
        field(us, '\n');
    }

    /** {@code v} right-aligned in 8 columns (wider when it needs), then {@code end}. */
    private void field(long v, char end) {
        int digits = 1;
        for (long x = v; x >= 10; x /= 10) {
            digits++;
        }
        for (int pad = 8 - digits; pad > 0; pad--) {
            buffer[length++] = ' ';
        }
        for (int k = digits - 1; k >= 0; k--) {
            buffer[length + k] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length += digits;
        buffer[length++] = (byte) end;
    }

    private void flush() {
        if (length == 0) {
            return;
        }
        try {
            out.write(buffer, 0, length);
            out.flush();
        } catch (IOException e) {
            // stdout gone (a closed pipe): the run and its result go on without the samples.
            done = true;
        }
        length = 0;
    }
}
