package rtbox.core.toolkit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.HdrHistogram.Histogram;

import rtbox.api.LiveThread;
import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Spike;

/**
 * Over 400 lines: the recorder's views of one sample (histograms, spikes, the -v ring, the live
 * figures, block maxima) are written by one measuring loop and must share its fields; split, each
 * would need its own call in the loop.
 *
 * <p>Records the latencies of one measuring thread. Everything is allocated up front;
 * {@link #record} does no allocation, takes no lock and calls nothing that logs,
 * so it can sit in a measuring loop. Not thread-safe: one recorder per thread, read
 * only after that thread has finished.
 *
 * <p>It keeps three views of the same samples: cyclictest's histogram (1 us buckets
 * up to a limit, then an overflow count), an exact HdrHistogram for percentiles, and
 * a coordinated-omission-corrected HdrHistogram that also counts the periodic
 * samples a late wake-up made impossible. Samples over the spike threshold are kept
 * with their time, up to a fixed number.
 *
 * <p>While it records, other threads may read its figures as a {@link LiveThread}
 * (since 1.5): the count, min, last, max and sum are written with release stores (a plain
 * store on x86; whole, not torn, on a 32-bit JVM too), and with {@code keptSamples} the
 * latest samples go into a preallocated ring as well, for a printer thread (cyclictest's
 * -v). Only the measuring thread writes; nothing waits for a reader, so a reader that falls
 * a ring behind finds those samples gone ({@link #sampleNs} -1) and says so, rather than
 * slowing the measurement. A break limit (cyclictest's -b) marks the first sample over it
 * ({@link #broken()}) for the probe's loop to stop at.
 *
 * <p>Since 1.1 it also keeps the maximum of every block of {@link #BLOCK_SAMPLES} samples and
 * when it was taken ({@link #blockMaxima()}), for the runner's pWCET estimate: two compares and
 * a count per sample, into arrays of {@link #MAX_BLOCKS} made up front. When they are full,
 * neighbouring blocks are merged in place (the maximum of two blocks of n is the maximum of
 * their block of 2n) and the block size doubles, so a run of any length fits the same memory.
 */
public final class LatencyRecorder implements LiveThread {
    /** Largest latency tracked exactly; larger ones are clamped (and are overflows anyway). */
    private static final long HIGHEST_NS = 60_000_000_000L;
    private static final int MAX_SPIKES = 8192;
    /** Samples in a block whose maximum is kept (doubled when {@link #MAX_BLOCKS} fill up). @since 1.1 */
    public static final int BLOCK_SAMPLES = 1000;
    /** Block maxima kept: 4096 x 2 longs, 64 kB a thread; a 1 kHz run fills them in 68 minutes. @since 1.1 */
    public static final int MAX_BLOCKS = 4096;

    private final int thread;
    private final long expectedIntervalNs;
    private final long[] buckets;
    /** Cycle numbers of the first overflows, as many as there are buckets (cyclictest keeps as many). */
    private final long[] overflowCycles;
    private final Histogram exact = new Histogram(1, HIGHEST_NS, 3);
    private final Histogram corrected = new Histogram(1, HIGHEST_NS, 3);
    private final long[] spikeOffsets = new long[MAX_SPIKES];
    private final long[] spikeLatencies = new long[MAX_SPIKES];
    private final long[] blockMax = new long[MAX_BLOCKS];
    private final long[] blockMaxAt = new long[MAX_BLOCKS];
    private long blockSamples = BLOCK_SAMPLES;
    private int blocks;
    private long inBlock;
    private long currentMax = -1;
    private long currentMaxAt;

    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SAMPLES, SUM, MIN, MAX, LAST, TOTAL, BASE, TID;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SAMPLES = l.findVarHandle(LatencyRecorder.class, "samples", long.class);
            SUM = l.findVarHandle(LatencyRecorder.class, "sum", long.class);
            MIN = l.findVarHandle(LatencyRecorder.class, "min", long.class);
            MAX = l.findVarHandle(LatencyRecorder.class, "max", long.class);
            LAST = l.findVarHandle(LatencyRecorder.class, "lastSample", long.class);
            TOTAL = l.findVarHandle(LatencyRecorder.class, "total", long.class);
            BASE = l.findVarHandle(LatencyRecorder.class, "base", long.class);
            TID = l.findVarHandle(LatencyRecorder.class, "tid", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int cpu;
    /** The sample ring for -v (null without): {@code ring[total & mask]}. */
    private final long[] ring;
    private final long mask;
    private final long breakNs;
    /** Samples recorded since construction, warm-up included: the ring's index. */
    private long total;
    /** {@link #total} when measuring began ({@link #reset}); -1 during warm-up. */
    private long base = -1;
    private int tid;
    /** The last sample, unclamped (cyclictest's Act). */
    private long lastSample;
    private long breakOffset = -1;
    private long breakLatency;
    private long spikeThresholdNs;
    private long startNanos;
    private long overflows;
    private long samples;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max;
    private long missed;
    private long last;
    private int spikes;
    private long spikesDropped;

    /**
     * @param histogramLimitUs number of 1 us buckets (cyclictest's -h)
     * @param expectedIntervalNs the period, for the corrected view; 0 for a non-periodic probe
     */
    public LatencyRecorder(int thread, int histogramLimitUs, long expectedIntervalNs) {
        this(thread, -1, histogramLimitUs, expectedIntervalNs, 0, 0);
    }

    /**
     * @param cpu the CPU the thread measures on (for {@link LiveThread#cpu()})
     * @param keptSamples the ring's size for printing every sample, rounded up to a power of
     *        two; 0 for none
     * @param breakNs the break limit (cyclictest's -b): the first sample over it is
     *        marked; 0 for none
     * @since 1.5
     */
    public LatencyRecorder(int thread, int cpu, int histogramLimitUs, long expectedIntervalNs, int keptSamples,
            long breakNs) {
        this.thread = thread;
        this.cpu = cpu;
        this.buckets = new long[histogramLimitUs];
        this.overflowCycles = new long[histogramLimitUs];
        this.expectedIntervalNs = expectedIntervalNs;
        this.spikeThresholdNs = Long.MAX_VALUE;
        int size = keptSamples <= 0 ? 0 : Integer.bitCount(keptSamples) == 1 ? keptSamples
                : Integer.highestOneBit(keptSamples) << 1;
        this.ring = size == 0 ? null : new long[size];
        this.mask = size - 1;
        this.breakNs = breakNs <= 0 ? Long.MAX_VALUE : breakNs;
        prime();
    }

    /**
     * Uses every VarHandle access mode once, here in the constructing thread: a VarHandle
     * links its access code (and may load classes) at its first use, which must not be the
     * measuring thread's first sample (with --warmup 0 there is no warm-up to take it).
     */
    private void prime() {
        long[] one = new long[1];
        LONG.setRelease(one, 0, (long) LONG.getAcquire(one, 0));
        for (VarHandle h : new VarHandle[] {SAMPLES, SUM, MIN, MAX, LAST, TOTAL, BASE}) {
            h.setRelease(this, (long) h.getAcquire(this));
        }
        TID.setRelease(this, (int) TID.getAcquire(this));
        VarHandle.loadLoadFence();
    }

    /** The measuring thread's Linux id, for {@link LiveThread#tid()}: call once from that thread. @since 1.5 */
    public void runningAs(int linuxTid) {
        TID.setRelease(this, linuxTid);
    }

    /** Forgets everything recorded (after warm-up) and starts the time line at {@code startNanos}. */
    public void reset(long startNanos, long spikeThresholdNs) {
        Arrays.fill(buckets, 0);
        exact.reset();
        corrected.reset();
        this.startNanos = startNanos;
        this.spikeThresholdNs = spikeThresholdNs;
        overflows = 0;
        SAMPLES.setRelease(this, 0L);
        SUM.setRelease(this, 0L);
        MIN.setRelease(this, Long.MAX_VALUE);
        MAX.setRelease(this, 0L);
        LAST.setRelease(this, 0L);
        missed = 0;
        spikes = 0;
        spikesDropped = 0;
        breakOffset = -1;
        blockSamples = BLOCK_SAMPLES;
        blocks = 0;
        inBlock = 0;
        currentMax = -1;
        // Last: a reader that sees the base sees the figures above zeroed (or later ones).
        BASE.setRelease(this, total);
    }

    /** Records one latency measured at monotonic time {@code atNanos}. */
    public void record(long latencyNs, long atNanos) {
        long v = latencyNs < 0 ? 0 : latencyNs;
        long bucket = v / 1000;
        if (bucket < buckets.length) {
            buckets[(int) bucket]++;
        } else {
            if (overflows < overflowCycles.length) {
                overflowCycles[(int) overflows] = samples;
            }
            overflows++;
        }
        long clamped = v > HIGHEST_NS ? HIGHEST_NS : v;
        exact.recordValue(clamped);
        corrected.recordValue(clamped);
        last = clamped;
        if (ring != null) {
            // Release: a reader that sees this sample here also sees the count below it was
            // written after (and so can tell it from an older one in the same slot).
            LONG.setRelease(ring, (int) (total & mask), v);
        }
        LAST.setRelease(this, v);
        SUM.setRelease(this, sum + v);
        if (v < min) {
            MIN.setRelease(this, v);
        }
        if (v > max) {
            MAX.setRelease(this, v);
        }
        SAMPLES.setRelease(this, samples + 1);
        TOTAL.setRelease(this, total + 1);
        if (v > breakNs && breakOffset < 0 && base >= 0) {
            breakOffset = atNanos - startNanos;
            breakLatency = v;
        }
        if (v > currentMax) {
            currentMax = v;
            currentMaxAt = atNanos - startNanos;
        }
        if (++inBlock == blockSamples) {
            endBlock();
        }
        if (v >= spikeThresholdNs) {
            if (spikes < MAX_SPIKES) {
                spikeOffsets[spikes] = atNanos - startNanos;
                spikeLatencies[spikes] = v;
                spikes++;
            } else {
                spikesDropped++;
            }
        }
    }

    /** Keeps the block's maximum; merges neighbours when every slot is taken. */
    private void endBlock() {
        blockMax[blocks] = currentMax;
        blockMaxAt[blocks] = currentMaxAt;
        blocks++;
        inBlock = 0;
        currentMax = -1;
        if (blocks == MAX_BLOCKS) {
            for (int i = 0; i < MAX_BLOCKS / 2; i++) {
                int a = 2 * i, b = a + 1;
                int pick = blockMax[b] > blockMax[a] ? b : a;
                blockMax[i] = blockMax[pick];
                blockMaxAt[i] = blockMaxAt[pick];
            }
            blocks = MAX_BLOCKS / 2;
            blockSamples *= 2;
        }
    }

    /**
     * The maxima of the full blocks recorded since {@link #reset} (a last, partial block is left
     * out), with their times from the start of measuring. Allocates: call after measuring.
     *
     * @since 1.1
     */
    public rtbox.api.result.BlockMaxima blockMaxima() {
        return new rtbox.api.result.BlockMaxima(blockSamples, Arrays.copyOf(blockMax, blocks),
                Arrays.copyOf(blockMaxAt, blocks));
    }

    /**
     * Counts periods that the last, late wake-up skipped entirely (missed deadlines),
     * and adds to the corrected view the latencies those wake-ups would have had:
     * the last latency less one, two, ... periods.
     */
    public void missed(long periods) {
        missed += periods;
        for (long k = 1; k <= periods && expectedIntervalNs > 0; k++) {
            long v = last - k * expectedIntervalNs;
            corrected.recordValue(v < 0 ? 0 : v);
        }
    }

    public long samples() {
        return samples;
    }

    /** True once a measured sample (not a warm-up one) was over the break limit. @since 1.5 */
    public boolean broken() {
        return breakOffset >= 0;
    }

    /** When the breaking sample was taken, from the start of measuring; -1 if none. @since 1.5 */
    public long breakOffsetNs() {
        return breakOffset;
    }

    /** The breaking sample in ns; 0 if none. @since 1.5 */
    public long breakLatencyNs() {
        return breakOffset < 0 ? 0 : breakLatency;
    }

    @Override
    public int thread() {
        return thread;
    }

    @Override
    public int cpu() {
        return cpu;
    }

    @Override
    public int tid() {
        return (int) TID.getAcquire(this);
    }

    @Override
    public long cycles() {
        return (long) BASE.getAcquire(this) < 0 ? 0 : (long) SAMPLES.getAcquire(this);
    }

    @Override
    public long minNs() {
        long m = (long) MIN.getAcquire(this);
        return m == Long.MAX_VALUE || cycles() == 0 ? 0 : m;
    }

    /** The last sample in ns, cyclictest's Act (0 without samples). @since 1.5 */
    @Override
    public long lastNs() {
        return cycles() == 0 ? 0 : (long) LAST.getAcquire(this);
    }

    @Override
    public long maxNs() {
        return cycles() == 0 ? 0 : (long) MAX.getAcquire(this);
    }

    @Override
    public long sumNs() {
        return cycles() == 0 ? 0 : (long) SUM.getAcquire(this);
    }

    @Override
    public int samplesKept() {
        return ring == null ? 0 : ring.length;
    }

    /**
     * Sample {@code cycle} (0: the first after warm-up) while it is still in the ring. The
     * slot is read first, then the count: a slot the writer already reused for sample
     * {@code cycle + ring size} is only read while the count says it may have been, so -1
     * is answered then, never a later sample under an earlier number.
     */
    @Override
    public long sampleNs(long cycle) {
        long b = (long) BASE.getAcquire(this);
        if (ring == null || b < 0 || cycle < 0) {
            return -1;
        }
        long at = b + cycle;
        if (at >= (long) TOTAL.getAcquire(this)) {
            return -1;
        }
        long v = (long) LONG.getAcquire(ring, (int) (at & mask));
        VarHandle.loadLoadFence();
        // The writer may be writing sample TOTAL now (into slot TOTAL & mask) but no further.
        return (long) TOTAL.getAcquire(this) - at >= ring.length ? -1 : v;
    }

    public long missedDeadlines() {
        return missed;
    }

    /** The exact median so far, in nanoseconds (used after warm-up to set the spike threshold). */
    public long medianNs() {
        return samples == 0 ? 0 : exact.getValueAtPercentile(50);
    }

    /** cyclictest's view with exact summary figures. */
    public rtbox.api.result.Histogram histogram() {
        return new rtbox.api.result.Histogram(1000, buckets.clone(), overflows, samples,
                samples == 0 ? 0 : min, max, samples == 0 ? 0 : (double) sum / samples,
                percentile(50), percentile(99), percentile(99.9),
                Arrays.copyOf(overflowCycles, (int) Math.min(overflows, overflowCycles.length)));
    }

    private long percentile(double p) {
        return samples == 0 ? 0 : Math.min(exact.highestEquivalentValue(exact.getValueAtPercentile(p)), max);
    }

    public CorrectedLatency corrected() {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(corrected.getNeededByteBufferCapacity());
        int length = corrected.encodeIntoCompressedByteBuffer(buffer);
        String encoded = java.util.Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
        long n = corrected.getTotalCount();
        return new CorrectedLatency(n, n == 0 ? 0 : corrected.getValueAtPercentile(50),
                n == 0 ? 0 : corrected.getValueAtPercentile(99), n == 0 ? 0 : corrected.getValueAtPercentile(99.9),
                n == 0 ? 0 : corrected.getMaxValue(), encoded);
    }

    /** Samples over the spike threshold, in time order, as yet without a cause. */
    public List<Spike> spikes() {
        List<Spike> list = new ArrayList<>(spikes);
        for (int i = 0; i < spikes; i++) {
            list.add(new Spike(thread, spikeOffsets[i], spikeLatencies[i], "", ""));
        }
        return list;
    }

    public long spikesDropped() {
        return spikesDropped;
    }
}
