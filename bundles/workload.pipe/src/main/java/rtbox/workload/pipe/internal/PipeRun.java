package rtbox.workload.pipe.internal;

import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import rtbox.api.RtboxException;
import rtbox.api.WorkloadHandle;
import rtbox.os.BytePipe;
import rtbox.os.ForkedChild;
import rtbox.os.OsException;
import rtbox.os.PipeLoop;
import rtbox.os.ProcessUsage;
import rtbox.os.ThreadSettings;
import rtbox.os.ThreadUsage;

/**
 * Over 400 lines on purpose: the four ends (writer, reader, ping, pong) share the run's
 * pipes, stop flag, child process and usage accounting, which split per mode would have to
 * be passed around; the native loops themselves are in rtbox.os (PipeLoop).
 *
 * <p>One running pipe switcher. In one-way mode a writer end writes one byte per
 * message and a reader end reads it (seed 001); in rtt mode a "ping" end writes a
 * byte and waits for a "pong" end to send it back on a second pipe. With
 * ends=processes the second end is a child process ({@code dd bs=1} reading, or
 * {@code cat} echoing; the JVM must not fork itself) whose pipe ends are handed over
 * through /proc/self/fd.
 *
 * <p>Stop: the first end sees the stop flag between messages and closes its write
 * end; the second end then reads end of file and leaves. Each end reads its own
 * getrusage(RUSAGE_THREAD) before and after its loop (a child's comes from /proc).
 */
final class PipeRun implements WorkloadHandle {
    static final String THREAD_PREFIX = "rtbox-pipe-";
    private static final long STOP_BUDGET_NS = 80_000_000L;

    record Settings(boolean rtt, boolean processes, long count, ThreadSettings threads, boolean machineCode) {
    }

    private final Settings s;
    private final BytePipe forth;
    private final BytePipe back;
    private final CountDownLatch ready;
    private volatile boolean stop;
    private volatile boolean running;
    private volatile String error;
    private Thread first, second;
    // The ends as machine-code loops (rtbox.os.PipeLoop), or null: the JNA loops. One-way: the
    // writer's and reader's loops pass two messages an iteration; with ends=processes the
    // reader's loop runs in a child forked by the writer's thread, as seed 001's program forks.
    private volatile PipeLoop pingLoop, pongLoop, writerLoop, readerLoop;
    private ForkedChild readerChild;
    private String loopNote;
    private Process child;
    private long childPid;

    // Written by each end at its finish, read after join (join gives happens-before).
    private long firstCount, secondCount, startNs, endNs;
    private ThreadUsage firstUsage, secondUsage;

    PipeRun(Settings s) throws RtboxException {
        this.s = s;
        this.forth = BytePipe.open();
        BytePipe b = null;
        try {
            b = s.rtt ? BytePipe.open() : null;
        } catch (OsException e) {
            forth.close();
            throw e;
        }
        this.back = b;
        this.ready = new CountDownLatch(s.processes ? 1 : 2);
    }

    void start() throws RtboxException {
        running = true;
        openLoops();
        if (s.processes) {
            if (readerLoop == null) {
                // Otherwise the writer's thread forks the reader's loop (spawnReader).
                startChild();
            }
        } else {
            second = new Thread(s.rtt ? this::pong : this::reader, THREAD_PREFIX + (s.rtt ? "pong" : "reader"));
            second.setDaemon(true);
            second.start();
        }
        first = new Thread(s.rtt ? this::ping : this::writer, THREAD_PREFIX + (s.rtt ? "ping" : "writer"));
        first.setDaemon(true);
        first.start();
        try {
            ready.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (error != null) {
            String why = error;
            stop();
            throw new RtboxException("policy", "pipe: cannot set " + s.threads + " on its threads: " + why);
        }
    }

    /**
     * The ends run as machine-code loops where they can (see PipeLoop: a JNA call per byte
     * costs a quarter of a round trip, and one-way ends at 0.76-0.83x of seed 001's C program);
     * otherwise, or with loop=jna, as Java loops over JNA, and {@link #loopNote()} says why.
     */
    private void openLoops() {
        if (!s.machineCode) {
            loopNote = "loop=jna: each read and write is a JNA call";
            return;
        }
        long limit = s.count == 0 ? Long.MAX_VALUE : s.count;
        try {
            if (s.rtt) {
                pingLoop = PipeLoop.writeThenRead(forth.writeFd(), back.readFd(), limit);
                if (!s.processes) {
                    pongLoop = PipeLoop.readThenWrite(forth.readFd(), back.writeFd(), Long.MAX_VALUE);
                }
            } else {
                // Pairs: an odd count's last message goes through JNA (writer, and reader in threads).
                writerLoop = PipeLoop.writesPairs(forth.writeFd(), limit == Long.MAX_VALUE ? limit : limit / 2);
                readerLoop = PipeLoop.readsPairs(forth.readFd(),
                        limit == Long.MAX_VALUE || s.processes ? Long.MAX_VALUE : limit / 2);
            }
        } catch (OsException e) {
            closeLoop(pingLoop);
            closeLoop(writerLoop);
            pingLoop = null;
            writerLoop = null;
            loopNote = "the machine-code loop cannot run here (" + e.getMessage() + "): each read and write is a JNA call";
        }
    }

    /** Null when the round-trip ends run in machine code, otherwise why not. */
    String loopNote() {
        return loopNote;
    }

    private void startChild() throws RtboxException {
        ProcessBuilder pb = s.rtt ? new ProcessBuilder("cat") : new ProcessBuilder("dd", "bs=1", "of=/dev/null", "status=none");
        pb.redirectInput(new File("/proc/self/fd/" + forth.readFd()));
        pb.redirectOutput(s.rtt ? ProcessBuilder.Redirect.appendTo(new File("/proc/self/fd/" + back.writeFd()))
                : ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            child = pb.start();
        } catch (IOException e) {
            closeLoop(pingLoop);
            close();
            throw new RtboxException("ends", "pipe: cannot start the child process " + pb.command() + ": " + e.getMessage());
        }
        childPid = child.pid();
        if (s.rtt) {
            // Only the child may hold the return pipe's write end, or its end of file never comes.
            back.closeWrite();
        }
        try {
            s.threads.applyTo((int) childPid);
        } catch (OsException e) {
            child.destroyForcibly();
            closeLoop(pingLoop);
            close();
            throw e;
        }
    }

    // ---- one-way ends ----

    private void writer() {
        if (!prepare()) {
            closeLoop(writerLoop);
            if (s.processes) {
                closeLoop(readerLoop);
            }
            forth.closeWrite();
            return;
        }
        ThreadUsage u0 = usage();
        long limit = s.count == 0 ? Long.MAX_VALUE : s.count;
        long n = 0;
        PipeLoop loop = writerLoop;
        if (loop != null && s.processes && !spawnReader()) {
            forth.closeWrite();
            running = false;
            return;
        }
        startNs = System.nanoTime();
        if (loop != null) {
            int r = stop ? PipeLoop.FINISHED : loop.run();
            n = 2 * loop.count();
            loop.close();
            if (r != PipeLoop.FINISHED) {
                fail("write", r);
            }
        }
        while (n < limit && !stop && error == null) {
            // The JNA loop, or an odd count's last message after the machine-code loop's pairs.
            int r = forth.writeByte();
            if (r != 1) {
                fail("write", r);
                break;
            }
            n++;
        }
        if (s.processes) {
            if (stop) {
                // Stopped: the child's figures as they are; draining would eat the stop budget.
                recordChild();
            } else {
                drainThenRecordChild(n);
            }
        }
        firstUsage = usageSince(u0);
        firstCount = n;
        // What the child did not read is still in the pipe (a stop, or a drain that timed out).
        int unread = s.processes ? Math.max(0, forth.pending()) : 0;
        forth.closeWrite();
        if (s.processes) {
            endNs = System.nanoTime();
            secondCount = n - unread;
            running = false;
        }
    }

    private void reader() {
        if (!prepare()) {
            closeLoop(readerLoop);
            forth.closeRead();
            return;
        }
        ThreadUsage u0 = usage();
        long n = 0;
        long limit = s.count == 0 ? Long.MAX_VALUE : s.count;
        PipeLoop loop = readerLoop;
        if (loop != null) {
            // Leaves at its pairs, on end of file (the writer is done) or on a stop.
            int r = loop.run();
            n = 2 * loop.count();
            loop.close();
            if (r < 0) {
                fail("read", r);
            } else if (r == PipeLoop.FINISHED && n < limit && !stop) {
                // An odd count's last message.
                if (forth.readByte() == 1) {
                    n++;
                }
            }
        }
        // On a stop the reader leaves without draining the pipe (up to 64 KiB of
        // one-byte messages would take longer than the stop budget), and closes its
        // end so that a writer blocked on a full pipe gets EPIPE.
        while (loop == null && !stop) {
            int r = forth.readByte();
            if (r == 1) {
                n++;
            } else {
                if (r < 0) {
                    fail("read", r);
                }
                break;
            }
        }
        forth.closeRead();
        endNs = System.nanoTime();
        secondUsage = usageSince(u0);
        secondCount = n;
        running = false;
    }

    // ---- round-trip ends ----

    private void ping() {
        if (!prepare()) {
            closeLoop(pingLoop);
            forth.closeWrite();
            return;
        }
        ThreadUsage u0 = usage();
        long limit = s.count == 0 ? Long.MAX_VALUE : s.count;
        long n = 0;
        PipeLoop loop = pingLoop;
        startNs = System.nanoTime();
        if (loop != null) {
            int r = stop ? PipeLoop.FINISHED : loop.run();
            endNs = System.nanoTime();
            n = loop.count();
            loop.close();
            if (r != PipeLoop.FINISHED) {
                fail(r == 0 ? "read" : "write or read", r);
            }
        } else {
            while (n < limit && !stop) {
                int r = forth.writeByte();
                if (r != 1) {
                    fail("write", r);
                    break;
                }
                r = back.readByte();
                if (r != 1) {
                    fail("read", r);
                    break;
                }
                n++;
            }
            endNs = System.nanoTime();
        }
        firstUsage = usageSince(u0);
        firstCount = n;
        if (s.processes) {
            recordChild();
        }
        forth.closeWrite();
        running = false;
    }

    private void pong() {
        if (!prepare()) {
            closeLoop(pongLoop);
            back.closeWrite();
            return;
        }
        ThreadUsage u0 = usage();
        long n = 0;
        PipeLoop loop = pongLoop;
        if (loop != null) {
            // Leaves on end of file: the ping end closes its write end when it is done.
            int r = loop.run();
            n = loop.count();
            loop.close();
            if (r < 0) {
                fail("read or write", r);
            }
        } else {
            while (true) {
                int r = forth.readByte();
                if (r != 1) {
                    if (r < 0) {
                        fail("read", r);
                    }
                    break;
                }
                r = back.writeByte();
                if (r != 1) {
                    fail("write", r);
                    break;
                }
                n++;
            }
        }
        secondUsage = usageSince(u0);
        secondCount = n;
        back.closeWrite();
    }

    // ---- helpers ----

    /** Applies the settings and waits for the other end, so both loops start together. */
    private boolean prepare() {
        try {
            s.threads.applyToCurrentThread();
        } catch (OsException e) {
            error = e.getMessage();
            stop = true;
            running = false;
            ready.countDown();
            return false;
        }
        ready.countDown();
        try {
            ready.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return error == null;
    }

    private static void closeLoop(PipeLoop loop) {
        if (loop != null) {
            loop.close();
        }
    }

    /**
     * Waits until the child has read all {@code written} messages (the pipe is empty, or the
     * forked loop has read every pair), at most 1 s (a full pipe, 64 KiB, at 10 us a read),
     * sleeping between looks rather than spinning: the child may share this CPU.
     */
    private void drainThenRecordChild(long written) {
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < deadline
                && (readerChild != null ? 2 * readerLoop.count() < written - written % 2 : forth.pending() > 0)) {
            LockSupport.parkNanos(20_000);
        }
        if (readerChild != null && written % 2 == 1 && forth.pending() == 1) {
            // The forked loop reads pairs: an odd count's last message is read here.
            forth.readByte();
        }
        recordChild();
    }

    private void recordChild() {
        try {
            secondUsage = ProcessUsage.of(childPid);
        } catch (OsException e) {
            secondUsage = null;
        }
        if (readerChild != null) {
            // Its figures are taken: now end it (it holds the pipe's write end too, so it
            // would never see end of file) and reap it.
            readerChild.kill();
            closeLoop(readerLoop);
        }
    }

    /**
     * Forks the one-way reader's loop from the writer's thread, which has the run's policy and
     * affinity (the child inherits them) and outlives the child (it dies with this thread).
     */
    private boolean spawnReader() {
        try {
            readerChild = readerLoop.spawn();
            childPid = readerChild.pid();
            return true;
        } catch (OsException e) {
            error = "pipe: cannot fork the reader's loop: " + e.getMessage();
            closeLoop(readerLoop);
            closeLoop(writerLoop);
            return false;
        }
    }

    private void fail(String call, int negErrno) {
        if (!stop && error == null) {
            error = BytePipe.failure(call + " on the pipe", negErrno).getMessage();
        }
    }

    private static ThreadUsage usage() {
        try {
            return ThreadUsage.ofCurrentThread();
        } catch (OsException e) {
            return null;
        }
    }

    private static ThreadUsage usageSince(ThreadUsage u0) {
        ThreadUsage u1 = usage();
        return u0 == null || u1 == null ? null : u1.minus(u0);
    }

    @Override
    public boolean active() {
        return running;
    }

    @Override
    public boolean finished() {
        // Ended by itself: its count reached, or an end failed.
        return !running && !stop;
    }

    @Override
    public Map<String, Double> stop() {
        stop = true;
        for (PipeLoop loop : new PipeLoop[] {pingLoop, writerLoop, readerChild == null ? readerLoop : null}) {
            if (loop != null) {
                loop.stop();
            }
        }
        long deadline = System.nanoTime() + STOP_BUDGET_NS;
        join(first, deadline);
        if (child != null) {
            try {
                if (!child.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    // SIGKILL; the JDK's reaper collects it.
                    child.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        join(second, deadline);
        close();
        return figures();
    }

    private static void join(Thread t, long deadline) {
        if (t == null) {
            return;
        }
        try {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void close() {
        forth.close();
        if (back != null) {
            back.close();
        }
    }

    /** Last error, if an end failed. */
    String error() {
        return error;
    }

    Map<String, Double> figures() {
        Map<String, Double> f = new LinkedHashMap<>();
        double elapsed = endNs > startNs ? (endNs - startNs) / 1e9 : 0;
        long messages = s.rtt ? 2 * firstCount : secondCount;
        f.put("elapsed_s", elapsed);
        f.put("messages", (double) messages);
        f.put("messages_per_s", elapsed > 0 ? messages / elapsed : 0);
        if (s.rtt) {
            f.put("round_trips", (double) firstCount);
            f.put("round_trips_per_s", elapsed > 0 ? firstCount / elapsed : 0);
        }
        ThreadUsage a = firstUsage, b = secondUsage;
        if (a != null && b != null) {
            long vol = a.voluntarySwitches + b.voluntarySwitches;
            long invol = a.involuntarySwitches + b.involuntarySwitches;
            f.put("voluntary_switches", (double) vol);
            f.put("involuntary_switches", (double) invol);
            f.put("switches_per_s", elapsed > 0 ? (vol + invol) / elapsed : 0);
            f.put("user_s", (a.userNs + b.userNs) / 1e9);
            f.put("sys_s", (a.systemNs + b.systemNs) / 1e9);
            String w = s.rtt ? "ping" : "writer", r = s.rtt ? "pong" : "reader";
            f.put(w + "_cpu_share", elapsed > 0 ? (a.userNs + a.systemNs) / 1e9 / elapsed : 0);
            f.put(r + "_cpu_share", elapsed > 0 ? (b.userNs + b.systemNs) / 1e9 / elapsed : 0);
        }
        f.put("processes", s.processes ? 1.0 : 0.0);
        f.put("machine_code_loop", (s.rtt ? pingLoop : writerLoop) != null ? 1.0 : 0.0);
        f.put("errors", error == null ? 0.0 : 1.0);
        return f;
    }
}
