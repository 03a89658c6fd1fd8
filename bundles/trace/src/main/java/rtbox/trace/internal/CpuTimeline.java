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

    // The state machine: the task on the CPU, and the interrupt contexts on top of it.
    private long task = -1;
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
     * A context switch: what ran so far was {@code prev} (known from the event even when
     * the trace started in the middle of its run), from now on {@code next} runs.
     * {@code keepNext} false for the idle task and the probe's threads.
     */
    void switched(long ts, long next, boolean keepNext) {
        if (lossOpen) {
            // What ran since the loss was unknown up to here.
            losses[lossCount - 1] = ts;
            lossOpen = false;
        }
        if (segmentStart < 0) {
            // The first switch on this CPU: from here on the timeline is complete.
            keptFrom = ts;
        } else if (depth == 0) {
            emit(task, segmentStart, ts);
        }
        task = keepNext ? next : -1;
        depth = 0;
        segmentStart = ts;
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
        int cap = starts.length;
        int n = (int) Math.min(stored, cap);
        int first = stored >= cap ? next : 0;
        for (int k = 0; k < n; k++) {
            int i = (first + k) % cap;
            if (ends[i] > from && starts[i] < to) {
                sink.accept(owners[i], Math.min(ends[i], to) - Math.max(starts[i], from));
            }
        }
    }

    interface Sink {
        void accept(long owner, long ns);
    }
}
