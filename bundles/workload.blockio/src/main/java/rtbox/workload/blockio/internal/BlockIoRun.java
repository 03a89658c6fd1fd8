package rtbox.workload.blockio.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

import rtbox.api.RtboxException;
import rtbox.api.WorkloadHandle;
import rtbox.core.toolkit.BusyWindows;
import rtbox.os.BlockReader;
import rtbox.os.DiskInfo;
import rtbox.os.OsException;
import rtbox.os.ThreadSettings;

/**
 * One reading thread: pread of one block after another from offset 0, wrapping at
 * the end, optionally paced to a rate. Each read's time goes into a preallocated
 * histogram, and when it was in flight into a preallocated ring of busy windows
 * ({@link ReadWindows}), so that the runner labels a probe's spike during a read
 * "workload" naming blockio; the loop allocates nothing.
 */
final class BlockIoRun implements WorkloadHandle, BusyWindows {
    static final String THREAD_NAME = "rtbox-blockio";
    /** Longest single read a histogram holds: 60 s, beyond any disk that still works. */
    private static final long MAX_READ_NS = 60_000_000_000L;

    private final BlockReader reader;
    private final long size;
    private final double rateBytesPerNs;
    private final boolean wrap;
    private final long count;
    private final ThreadSettings settings;
    private final DiskInfo disk;
    private final Histogram readNs = new Histogram(1000, MAX_READ_NS, 2);
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stop;
    private volatile boolean running = true;
    private final ReadWindows windows = new ReadWindows();
    private volatile String error;
    // Written by the reading thread before it ends; read after join.
    private long reads, bytes, wraps, startNs, endNs;
    private long stopMs;

    BlockIoRun(BlockReader reader, long size, double rateMBps, boolean wrap, long count, ThreadSettings settings,
            DiskInfo disk) {
        this.reader = reader;
        this.size = size;
        this.rateBytesPerNs = rateMBps * 1e6 / 1e9;
        this.wrap = wrap;
        this.count = count;
        this.settings = settings;
        this.disk = disk;
        this.thread = new Thread(this::loop, THREAD_NAME);
        thread.setDaemon(true);
    }

    void start() throws RtboxException {
        thread.start();
        try {
            ready.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (error != null) {
            String why = error;
            stop();
            throw new RtboxException("policy", "blockio: cannot set " + settings + " on its thread: " + why);
        }
    }

    private void loop() {
        try {
            settings.applyToCurrentThread();
        } catch (OsException e) {
            error = e.getMessage();
            running = false;
            ready.countDown();
            return;
        }
        ready.countDown();
        int bs = reader.blockSize();
        long limit = count == 0 ? Long.MAX_VALUE : count;
        long offset = 0, n = 0, total = 0, w = 0;
        long t0 = System.nanoTime();
        startNs = t0;
        while (n < limit && !stop) {
            if (rateBytesPerNs > 0) {
                long due = t0 + (long) (total / rateBytesPerNs);
                long now = System.nanoTime();
                // Sleep in slices so that a stop is seen within a few ms even at a slow rate.
                while (due - now > 0 && !stop) {
                    LockSupport.parkNanos(Math.min(due - now, 5_000_000L));
                    now = System.nanoTime();
                }
                if (stop) {
                    break;
                }
            }
            long a = System.nanoTime();
            windows.begin(a);
            int r = reader.read(offset);
            long b = System.nanoTime();
            windows.end(a, b);
            if (r < 0) {
                error = reader.failure(r, offset).getMessage();
                break;
            }
            if (r > 0) {
                readNs.recordValue(Math.min(Math.max(b - a, 1000), MAX_READ_NS));
                n++;
                total += r;
                offset += r;
            }
            if (r < bs || offset + bs > size) {
                if (!wrap) {
                    break;
                }
                offset = 0;
                w++;
            }
        }
        endNs = System.nanoTime();
        reads = n;
        bytes = total;
        wraps = w;
        running = false;
    }

    @Override
    public boolean active() {
        return windows.inFlight();
    }

    /** When reads were in flight (the newest {@link ReadWindows#CAPACITY} windows), a read in flight now last. */
    @Override
    public long[] busyWindows() {
        return windows.snapshot(System.nanoTime());
    }

    @Override
    public boolean finished() {
        // Ended by itself: its count, the end of a file it does not wrap, or an error.
        return !running && !stop;
    }

    /** True until the thread has finished (count reached, end of a non-wrapping file, stop or error). */
    boolean running() {
        return running;
    }

    @Override
    public Map<String, Double> stop() {
        long t0 = System.nanoTime();
        stop = true;
        try {
            thread.join(100);
            if (thread.isAlive()) {
                // A read in flight cannot be interrupted: a 1 MiB read from a 2 MB/s card takes 0.5 s.
                thread.join(30_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopMs = (System.nanoTime() - t0) / 1_000_000;
        if (!thread.isAlive()) {
            reader.close();
        }
        return figures();
    }

    String error() {
        return error;
    }

    Map<String, Double> figures() {
        Map<String, Double> f = new LinkedHashMap<>();
        double elapsed = endNs > startNs ? (endNs - startNs) / 1e9 : 0;
        f.put("elapsed_s", elapsed);
        f.put("reads", (double) reads);
        f.put("block_bytes", (double) reader.blockSize());
        f.put("bytes", (double) bytes);
        f.put("mb_per_s", elapsed > 0 ? bytes / 1e6 / elapsed : 0);
        f.put("reads_per_s", elapsed > 0 ? reads / elapsed : 0);
        f.put("wraps", (double) wraps);
        if (reads > 0) {
            f.put("read_us_min", readNs.getMinValue() / 1e3);
            f.put("read_us_p50", readNs.getValueAtPercentile(50) / 1e3);
            f.put("read_us_p99", readNs.getValueAtPercentile(99) / 1e3);
            f.put("read_us_p999", readNs.getValueAtPercentile(99.9) / 1e3);
            f.put("read_us_max", readNs.getMaxValue() / 1e3);
            f.put("read_us_mean", readNs.getMean() / 1e3);
            // A coarse histogram: reads up to 10^k us.
            long le = 10;
            for (int k = 1; k <= 6; k++, le *= 10) {
                f.put("reads_le_" + le + "us", (double) readNs.getCountBetweenValues(0, le * 1000));
            }
        }
        Boolean dma = disk.dma();
        f.put("dma", dma == null ? -1.0 : dma ? 1.0 : 0.0);
        f.put("stop_ms", (double) stopMs);
        f.put("errors", error == null ? 0.0 : 1.0);
        return f;
    }
}
