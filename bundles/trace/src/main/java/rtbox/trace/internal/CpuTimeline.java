package rtbox.trace.internal;

/**
 * Who held one CPU, when: the trace's events for that CPU turned into intervals of a
 * single owner each (a task, an interrupt handler, a softirq; the innermost one when
 * they nest, so an interrupt's time is not also counted for the task it interrupted).
 * The idle task and the probe's own threads are not kept. Intervals go into a
 * preallocated ring: the newest {@code capacity} are kept and {@link #keptFrom()} says
 * from when the history is complete. Written by the reader thread only; read after the
 * reader has stopped. No allocation per event.
 */
final class CpuTimeline {
    static final long KIND_TASK = 0, KIND_IRQ = 1L << 62, KIND_SOFTIRQ = 2L << 62;
    static final long KIND_MASK = 3L << 62;
    private static final int MAX_NESTING = 16;

    private final long[] starts, ends, owners;
    private int next;
    private long stored;
    /** Start of the history: the first switch seen, then the end of the newest interval overwritten. */
    private long keptFrom = Long.MAX_VALUE;
    /** Spans in which the kernel dropped events on this CPU, as [from, to] pairs (the newest 32). */
    private final long[] losses = new long[64];
    private int lossCount;
    private long lossesTotal;
    private boolean lossOpen;
    private long unknownSpans;
    private long placed;

    // The state machine: the task on the CPU, and the interrupt contexts on top of it.
    private long task = -1;
    /** The thread on the CPU as the last switch said (also for the idle task and the probe's, which are not kept). */
    private int taskTid = -1;
    /** The last wake-ups seen on this CPU (thread id, time), to place a switch the trace did not have. */
    private final int[] wokenTid = new int[16];
    private final long[] wokenAt = new long[16];
    private int woken;
    private final long[] nested = new long[MAX_NESTING];
    private int depth;
    private long segmentStart = -1;

    CpuTimeline(int capacity) {
        starts = new long[capacity];
        ends = new long[capacity];
        owners = new long[capacity];
    }

    static long task(int tid, int prio) {
        return KIND_TASK | ((long) (prio & 0xff) << 32) | (tid & 0xffffffffL);
    }

    static long irq(int irq) {
        return KIND_IRQ | (irq & 0xffffffffL);
    }

    static long softirq(int vec) {
        return KIND_SOFTIRQ | (vec & 0xffffffffL);
    }

    static int id(long owner) {
        return (int) owner;
    }

    static int prio(long owner) {
        return (int) ((owner >>> 32) & 0xff);
    }

    /**
     * An event other than a switch, recorded while {@code tid} was the current thread (its
     * common_pid). When that is not the thread the last switch put on the CPU, the switch
     * is missing from the trace: it is placed at this CPU's previous event, so the error is
     * at most the gap between two events (a tick, a probe's wake-up).
     */
    void current(long ts, int tid, long owner, boolean keep, long previousEventTs) {
        if (segmentStart < 0 || tid == taskTid || depth != 0) {
            return;
        }
        long at = Math.max(segmentStart, Math.min(previousEventTs, ts));
        emit(task, segmentStart, at);
        task = keep ? owner : -1;
        taskTid = tid;
        segmentStart = at;
        placed++;
    }

    long placedSwitches() {
        return placed;
    }

    /** A thread was woken (it may run on this CPU from now on). */
    void woke(long ts, int tid) {
        int i = woken++ % wokenTid.length;
        wokenTid[i] = tid;
        wokenAt[i] = ts;
    }

    /**
     * A context switch: {@code prev} ran so far, from now on {@code next} runs.
     * {@code keepPrev}/{@code keepNext} false for the idle task and the probe's threads.
     * When {@code prev} is not the thread the last switch put on the CPU, a switch is
     * missing from the trace (a kernel may leave some out: this VM's does for its own
     * agent's threads): if {@code prev} was woken since, it ran from its wake-up (a woken
     * RT thread preempts at once); otherwise who ran is unknown until now, and the window
     * is marked so, as dropped events are.
     */
    void switched(long ts, int prevTid, long prev, boolean keepPrev, int nextTid, long next, boolean keepNext) {
        if (lossOpen) {
            // What ran since the loss was unknown up to here.
            losses[lossCount - 1] = ts;
            lossOpen = false;
        }
        if (segmentStart < 0) {
            // The first switch on this CPU: from here on the timeline is complete.
            keptFrom = ts;
        } else if (depth == 0 && prevTid == taskTid) {
            emit(task, segmentStart, ts);
        } else if (depth == 0) {
            long wake = wokenSince(prevTid, segmentStart);
            if (wake >= 0) {
                emit(task, segmentStart, wake);
                emit(keepPrev ? prev : -1, wake, ts);
            } else {
                unknown(segmentStart, ts);
            }
        }
        task = keepNext ? next : -1;
        taskTid = nextTid;
        depth = 0;
        segmentStart = ts;
    }

    private long wokenSince(int tid, long since) {
        long at = -1;
        for (int i = 0; i < Math.min(woken, wokenTid.length); i++) {
            if (wokenTid[i] == tid && wokenAt[i] >= since && wokenAt[i] > at) {
                at = wokenAt[i];
            }
        }
        return at;
    }

    private void unknown(long from, long to) {
        int i = lossCount < losses.length ? lossCount : losses.length - 2;
        losses[i] = from;
        losses[i + 1] = to;
        lossCount = i + 2;
        unknownSpans++;
    }

    long unknownSpans() {
        return unknownSpans;
    }

    /** An interrupt handler or softirq starts on top of whatever ran. */
    void enter(long ts, long owner) {
        if (segmentStart >= 0) {
            emit(depth == 0 ? task : nested[depth - 1], segmentStart, ts);
            segmentStart = ts;
        }
        if (depth < MAX_NESTING) {
            nested[depth++] = owner;
        }
    }

    /** The innermost handler ended (one that started before the trace is ignored). */
    void exit(long ts, long owner) {
        if (depth == 0 || nested[depth - 1] != owner) {
            return;
        }
        if (segmentStart >= 0) {
            emit(owner, segmentStart, ts);
            segmentStart = ts;
        }
        depth--;
    }

    /**
     * The kernel dropped events between {@code from} (the last event read) and {@code to}:
     * what runs is unknown until the next switch.
     */
    void lost(long from, long to, long count) {
        lossesTotal += Math.max(1, count);
        int i = lossCount < losses.length ? lossCount : losses.length - 2;
        losses[i] = from;
        losses[i + 1] = to;
        lossCount = i + 2;
        lossOpen = true;
        task = -1;
        depth = 0;
    }

    /** Ends the open interval at {@code ts} (the end of the recording). */
    void flush(long ts) {
        if (segmentStart >= 0 && segmentStart < ts) {
            emit(depth == 0 ? task : nested[depth - 1], segmentStart, ts);
            segmentStart = ts;
        }
    }

    private void emit(long owner, long from, long to) {
        if (owner == -1 || to <= from) {
            return;
        }
        int cap = starts.length;
        if (stored >= cap) {
            keptFrom = Math.max(keptFrom, ends[next]);
        }
        starts[next] = from;
        ends[next] = to;
        owners[next] = owner;
        next = next + 1 == cap ? 0 : next + 1;
        stored++;
    }

    long keptFrom() {
        return keptFrom;
    }

    long lossesTotal() {
        return lossesTotal;
    }

    long intervalsStored() {
        return stored;
    }

    /** True when the kernel dropped events of this CPU in a span overlapping [from, to]. */
    boolean lostIn(long from, long to) {
        for (int i = 0; i < lossCount; i += 2) {
            if (losses[i] <= to && losses[i + 1] >= from) {
                return true;
            }
        }
        return false;
    }

    /** Calls {@code sink} with each kept interval overlapping [from, to], clipped to it. */
    void overlapping(long from, long to, Sink sink) {
        intervals(from, to, (owner, start, end) -> sink.accept(owner, end - start));
    }

    /** Calls {@code sink} with each kept interval overlapping [from, to], clipped to it, in time order. */
    void intervals(long from, long to, IntervalSink sink) {
        int cap = starts.length;
        int n = (int) Math.min(stored, cap);
        int first = stored >= cap ? next : 0;
        for (int k = 0; k < n; k++) {
            int i = (first + k) % cap;
            if (ends[i] > from && starts[i] < to) {
                sink.accept(owners[i], Math.max(starts[i], from), Math.min(ends[i], to));
            }
        }
    }

    interface Sink {
        void accept(long owner, long ns);
    }

    interface IntervalSink {
        void accept(long owner, long from, long to);
    }
}
