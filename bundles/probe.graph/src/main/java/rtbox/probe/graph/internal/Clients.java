package rtbox.probe.graph.internal;

import java.util.ArrayList;
import java.util.List;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.os.BytePipe;
import rtbox.os.ForkedChild;
import rtbox.os.OsException;
import rtbox.os.PipeLoop;
import rtbox.os.Sched;

/**
 * The graph's clients and the pipes that chain them: pipe 0 from the driver to client 1,
 * pipe i from client i to client i+1, the last from client N back to the driver. Each
 * client is the pipe switcher's machine-code loop (rtbox.os.PipeLoop): it blocks reading
 * one byte, spins its work, writes one byte to the next; in a thread of this JVM or, with
 * ends=processes, in a forked child (PipeLoop.spawn) that runs only that loop. Both ends
 * run the very same code, so threads and processes differ only in what a switch between
 * them costs, which is what the choice is for.
 *
 * <p>Stop: threads see end of file (the driver closes pipe 0; each client closes its
 * output when its loop returns, so the end of file runs down the chain); children are
 * killed and reaped ({@link ForkedChild#kill()}), since each holds every pipe's ends (a
 * fork copies the descriptors) and so never sees end of file. A child also gets SIGKILL
 * when the thread that spawned it ends: the probe's run thread, which outlives the run.
 */
final class Clients implements AutoCloseable {
    static final String THREAD_PREFIX = "rtbox-graph-client-";

    private final List<BytePipe> pipes = new ArrayList<>();
    private final List<PipeLoop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<ForkedChild> children = new ArrayList<>();
    private volatile String failure;
    /** Each client thread's Linux id, set by the thread as it starts (0 until then). */
    private int[] tids = new int[0];

    /** Opens the pipes and the loops; nothing runs yet. */
    Clients(int count) throws RtboxException {
        try {
            for (int i = 0; i <= count; i++) {
                pipes.add(BytePipe.open());
            }
            for (int i = 0; i < count; i++) {
                loops.add(PipeLoop.readThenWrite(pipes.get(i).readFd(), pipes.get(i + 1).writeFd(), Long.MAX_VALUE));
            }
        } catch (OsException e) {
            close();
            throw new RtboxException("graph", "graph: cannot build the graph's pipes and loops: " + e.getMessage(), e);
        }
    }

    /** The driver's end: it writes here to start a cycle. */
    BytePipe first() {
        return pipes.get(0);
    }

    /** The driver's end: the last client writes here when the cycle is done. */
    BytePipe last() {
        return pipes.get(pipes.size() - 1);
    }

    /** Sets every client's work, from the next cycle on (threads and children alike: a shared control block). */
    void work(long spins) {
        for (PipeLoop l : loops) {
            l.work(spins);
        }
    }

    /**
     * Starts the clients pinned to {@code cpu} at the policy: threads set their own, children
     * get theirs by pid right after the fork (before they are first woken).
     */
    void start(boolean processes, int cpu, SchedPolicy policy, int priority) throws RtboxException {
        if (processes) {
            for (int i = 0; i < loops.size(); i++) {
                ForkedChild c;
                try {
                    c = loops.get(i).spawn();
                } catch (OsException e) {
                    throw new RtboxException("ends", "graph: cannot start client " + (i + 1) + " as a process: "
                            + e.getMessage(), e);
                }
                children.add(c);
                try {
                    apply(c.pid(), cpu, policy, priority);
                } catch (OsException e) {
                    throw new RtboxException("policy", "graph: cannot set client " + (i + 1) + " (pid " + c.pid()
                            + ") to CPU " + cpu + ", " + policy.lowerName() + " " + priority + ": " + e.getMessage(), e);
                }
            }
            return;
        }
        tids = new int[loops.size()];
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(loops.size());
        for (int i = 0; i < loops.size(); i++) {
            int index = i;
            PipeLoop loop = loops.get(i);
            BytePipe out = pipes.get(i + 1);
            int number = i + 1;
            Thread t = new Thread(() -> {
                synchronized (this) {
                    tids[index] = Sched.gettid();
                }
                started.countDown();
                try {
                    apply(0, cpu, policy, priority);
                } catch (OsException e) {
                    failure = "client " + number + ": " + e.getMessage();
                    out.closeWrite();
                    return;
                }
                int r = loop.run();
                if (r < 0) {
                    failure = "client " + number + ": its loop failed with " + rtbox.os.Errno.name(-r);
                }
                // The end of file runs down the chain.
                out.closeWrite();
            }, THREAD_PREFIX + number);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        try {
            if (!started.await(5, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new RtboxException("ends", "graph: the client threads did not start within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RtboxException("ends", "graph: interrupted while the client threads started");
        }
    }

    /**
     * Each client's process and thread id ({@code {pid, tid}}; pid 0 for a thread of this
     * JVM), to read its CPU time: the thread's id, or the child's pid, which is its only thread's.
     */
    synchronized int[][] tasks() {
        int[][] t = new int[loops.size()][];
        for (int i = 0; i < t.length; i++) {
            t[i] = children.isEmpty() ? new int[] {0, tids[i]} : new int[] {children.get(i).pid(), children.get(i).pid()};
        }
        return t;
    }

    /** Iterations the clients have run so far, summed over them (each loop's count). */
    long cycles() {
        long n = 0;
        for (PipeLoop l : loops) {
            n += l.count();
        }
        return n;
    }

    private static void apply(int pid, int cpu, SchedPolicy policy, int priority) throws OsException {
        Sched.setAffinity(pid, cpu);
        if (policy != SchedPolicy.OTHER || priority != 0) {
            Sched.setScheduler(pid, policy, priority);
        }
    }

    /** Linux ids of the clients: thread ids are not known here, children's pids are. */
    List<Integer> childPids() {
        List<Integer> pids = new ArrayList<>();
        for (ForkedChild c : children) {
            pids.add(c.pid());
        }
        return pids;
    }

    /** Why a client failed, or null. */
    String failure() {
        return failure;
    }

    /** Ends every client and closes every pipe: no thread, process or descriptor is left. */
    @Override
    public void close() {
        for (ForkedChild c : children) {
            c.kill();
        }
        if (!pipes.isEmpty()) {
            pipes.get(0).closeWrite();
        }
        for (PipeLoop l : loops) {
            l.stop();
        }
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        boolean allEnded = threads.stream().noneMatch(Thread::isAlive);
        for (BytePipe p : pipes) {
            p.close();
        }
        // A loop's code may only be unmapped once its thread has left it.
        if (allEnded) {
            for (PipeLoop l : loops) {
                l.close();
            }
        }
    }
}
