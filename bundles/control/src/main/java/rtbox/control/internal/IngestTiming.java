package rtbox.control.internal;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import com.google.gson.JsonObject;

/**
 * Where an ingested message's time goes, summed since the start (issue 12: find out where
 * a saturated ingest spends it before changing it): in the MQTT client's callback waiting
 * for room in the writer's queue, decoding, in the queue until the writer takes it, in the
 * database (a batch's transaction, commit included), and acknowledging. Counters only (no
 * lock, no allocation per message); {@code /api/v1/ingest} shows them as totals, means and
 * maxima, and the writer logs the last interval's means every {@link #LOG_EVERY_NS}.
 */
final class IngestTiming {
    static final long LOG_EVERY_NS = 10_000_000_000L;

    final LongAdder messages = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder callbackWaitNs = new LongAdder();
    final LongAdder decodeNs = new LongAdder();
    final LongAdder queueWaitNs = new LongAdder();
    final LongAdder storeNs = new LongAdder();
    final LongAdder ackNs = new LongAdder();
    final LongAccumulator callbackWaitMaxNs = new LongAccumulator(Math::max, 0);
    final LongAccumulator queueWaitMaxNs = new LongAccumulator(Math::max, 0);
    final LongAccumulator storeMaxNs = new LongAccumulator(Math::max, 0);
    /** The last interval's totals, for {@link #interval}: written by the writer thread only. */
    private final long[] last = new long[7];

    private long[] now() {
        return new long[] {messages.sum(), batches.sum(), callbackWaitNs.sum(), decodeNs.sum(), queueWaitNs.sum(),
            storeNs.sum(), ackNs.sum()};
    }

    /** Since the last call (writer thread only): one log line, or null when nothing came. */
    String interval() {
        long[] n = now();
        long m = n[0] - last[0], b = n[1] - last[1];
        String line = m == 0 ? null : String.format(java.util.Locale.ROOT, "ingest: %d messages in %d batches;"
                + " per message, ms: callback wait %.2f, decode %.2f, queue wait %.1f, store %.2f (per batch %.1f),"
                + " ack %.3f", m, b, ms(n[2] - last[2], m), ms(n[3] - last[3], m), ms(n[4] - last[4], m),
                ms(n[5] - last[5], m), ms(n[5] - last[5], Math.max(1, b)), ms(n[6] - last[6], m));
        System.arraycopy(n, 0, last, 0, n.length);
        return line;
    }

    private static double ms(long ns, long count) {
        return count == 0 ? 0 : ns / 1e6 / count;
    }

    JsonObject json() {
        long[] n = now();
        JsonObject o = new JsonObject();
        o.addProperty("messages", n[0]);
        o.addProperty("batches", n[1]);
        o.addProperty("callback_wait_ms", n[2] / 1e6);
        o.addProperty("decode_ms", n[3] / 1e6);
        o.addProperty("queue_wait_ms", n[4] / 1e6);
        o.addProperty("store_ms", n[5] / 1e6);
        o.addProperty("ack_ms", n[6] / 1e6);
        o.addProperty("callback_wait_max_ms", callbackWaitMaxNs.get() / 1e6);
        o.addProperty("queue_wait_max_ms", queueWaitMaxNs.get() / 1e6);
        o.addProperty("store_batch_max_ms", storeMaxNs.get() / 1e6);
        return o;
    }
}
