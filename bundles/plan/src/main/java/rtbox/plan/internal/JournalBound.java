package rtbox.plan.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.os.AppendLog;

/**
 * The result journal's size bound (journalMaxBytes of rtbox.plan): when the journal has grown
 * past it, its oldest runs are dropped, as a stream (AppendLog.retain), until the runs kept
 * fill no more than three quarters of it, so that compaction comes once in many plans, not
 * after every one. Never dropped: the newest run, a run under way, and a run held by
 * {@link rtbox.plan.Plans#hold} (whose result has not yet safely left: the MQTT appliance
 * holds a plan run until its result is in the outbox). The runs kept are the newest ones in
 * a row, so that what is listed is the journal's recent past without gaps; held runs are
 * kept beside them wherever they are.
 */
final class JournalBound {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.plan");

    /** The default bound: some 110 plans of two 5 s cells (145 kB each), one plan of 200 such cells. */
    static final long DEFAULT_MAX_BYTES = 16L * 1024 * 1024;

    /** Held runs, each with how many holders hold it (the plan service while it runs, the appliance). */
    private final Map<String, Integer> held = new ConcurrentHashMap<>();
    private volatile long maxBytes = DEFAULT_MAX_BYTES;

    /** 0 or less: unbounded. */
    void maxBytes(long max) {
        maxBytes = max;
    }

    long maxBytes() {
        return maxBytes;
    }

    void hold(String id, boolean hold) {
        held.compute(id, (k, n) -> {
            int now = (n == null ? 0 : n) + (hold ? 1 : -1);
            return now > 0 ? Integer.valueOf(now) : null;
        });
    }

    /**
     * Drops the oldest runs when the journal is over its bound; returns the runs dropped.
     * A failure (a full disk for the copy) leaves the journal as it was, and says so.
     */
    int compact(AppendLog journal) {
        long max = maxBytes;
        try {
            if (max <= 0 || !Files.exists(journal.path()) || Files.size(journal.path()) <= max) {
                return 0;
            }
            Map<String, Long> sizes = JournalReader.sizes(journal);
            List<String> ids = new ArrayList<>(sizes.keySet());
            // What to drop, not what to keep: a run appended while this runs is kept.
            Set<String> drop = new HashSet<>();
            long kept = 0;
            boolean full = false;
            for (int i = ids.size() - 1; i >= 0; i--) {
                String id = ids.get(i);
                long size = sizes.get(id);
                full |= i < ids.size() - 1 && kept + size > max / 4 * 3;
                if (!full || held.containsKey(id)) {
                    kept += size;
                } else {
                    drop.add(id);
                }
            }
            if (drop.isEmpty()) {
                LOG.warn("result journal {}: {} bytes, over its bound of {}, but every run in it is held or the newest:"
                        + " nothing dropped", journal.path(), Files.size(journal.path()), max);
                return 0;
            }
            long before = Files.size(journal.path());
            int records = journal.retain(r -> !drop.contains(JournalReader.id(r)));
            LOG.info("result journal {}: {} bytes, over its bound of {} (journalMaxBytes of rtbox.plan): dropped the"
                    + " {} oldest runs, kept {} ({} records, {} bytes)", journal.path(), before, max, drop.size(),
                    ids.size() - drop.size(), records, Files.size(journal.path()));
            return drop.size();
        } catch (IOException | RuntimeException e) {
            LOG.warn("result journal {}: over its bound of {} bytes but cannot be compacted ({}); it is left whole"
                    + " and tried again after the next run", journal.path(), max, e.toString());
            return 0;
        }
    }
}
