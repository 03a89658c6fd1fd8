package rtbox.control.internal;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonObject;

/**
 * Audit entries for something that may come by the thousand (refused requests, an API token
 * polled by a CI loop), counted per (user, target) and minute so that a flood cannot fill the
 * disk: the first of a minute is an entry of its own ({@code ACTION}, with its detail), the
 * rest of that minute one {@code ACTION-repeated} entry ({@code minute}, {@code more}),
 * written at the next event after that minute (of any key) or at {@link #flush()}. At most two
 * entries per key and minute, and at most {@code maxKeys} keys at once (past that the others
 * share one count under the target {@code (many)}).
 */
final class CountedAudit {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.audit");
    private final Audit audit;
    private final String action;
    private final int maxKeys;
    private final Map<List<String>, long[]> counts = new HashMap<>(); // [user, target] -> {minute, count}

    CountedAudit(Audit audit, String action, int maxKeys) {
        this.audit = audit;
        this.action = action;
        this.maxKeys = maxKeys;
    }

    void count(String user, String target, JsonObject detail) {
        count(user, target, detail, System.currentTimeMillis() / 60_000);
    }

    void count(String user, String target, JsonObject detail, long minute) {
        boolean first;
        List<long[]> overCounts = new ArrayList<>();
        List<List<String>> overKeys = new ArrayList<>();
        List<String> key = List.of(user, target);
        synchronized (this) {
            overMinutes(minute, overKeys, overCounts);
            if (!counts.containsKey(key) && counts.size() >= maxKeys) {
                key = List.of(user, "(many)");
            }
            long[] c = counts.computeIfAbsent(key, k -> new long[] {minute, 0});
            c[1]++;
            first = c[1] == 1;
        }
        write(overKeys, overCounts);
        if (first) {
            try {
                audit.log(key.get(0), action, key.get(1), detail);
            } catch (SQLException e) {
                LOG.warn("cannot audit {} of {}: {}", action, key.get(1), Db.rootMessage(e));
            }
        }
    }

    /** Writes what is counted (at the control room's stop). */
    void flush() {
        List<long[]> overCounts = new ArrayList<>();
        List<List<String>> overKeys = new ArrayList<>();
        synchronized (this) {
            overMinutes(Long.MAX_VALUE, overKeys, overCounts);
        }
        write(overKeys, overCounts);
    }

    /** Takes the counts of minutes before {@code minute} out, with more than one event: their keys and {minute, more}. */
    private void overMinutes(long minute, List<List<String>> keys, List<long[]> over) {
        counts.entrySet().removeIf(e -> {
            if (e.getValue()[0] >= minute) {
                return false;
            }
            if (e.getValue()[1] > 1) {
                keys.add(e.getKey());
                over.add(new long[] {e.getValue()[0], e.getValue()[1] - 1});
            }
            return true;
        });
    }

    private void write(List<List<String>> keys, List<long[]> over) {
        for (int i = 0; i < keys.size(); i++) {
            JsonObject d = new JsonObject();
            d.addProperty("minute", Json.iso(over.get(i)[0] * 60_000));
            d.addProperty("more", over.get(i)[1]);
            try {
                audit.log(keys.get(i).get(0), action + "-repeated", keys.get(i).get(1), d);
            } catch (SQLException e) {
                LOG.warn("cannot audit {} of {}: {}", action, keys.get(i).get(1), Db.rootMessage(e));
            }
        }
    }
}
