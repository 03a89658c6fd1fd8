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
 * Refused requests (401 not logged in, 403 no CSRF token, a foreign origin, a role too low)
 * in the audit log, counted per source address and minute so that a flood cannot fill the
 * disk: a source's first refusal of a minute is an entry of its own ({@code refused}, with
 * status, method and path), the rest of that minute only a count, written as one
 * {@code refused-repeated} entry at the next refusal after that minute (from any source) or
 * when the control room stops. At most two entries per source and
 * minute, and at most {@link #SOURCES} sources tracked at once (past that, the others share
 * one count under the source {@code (many)}).
 */
final class Refusals {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.refusals");
    static final int SOURCES = 4096;
    private final Audit audit;
    private final Map<String, long[]> counts = new HashMap<>(); // source -> {minute, count}

    Refusals(Audit audit) {
        this.audit = audit;
    }

    void refused(String source, int status, String method, String path) {
        refused(source, status, method, path, System.currentTimeMillis() / 60_000);
    }

    void refused(String source, int status, String method, String path, long minute) {
        boolean first;
        List<Object[]> over;
        synchronized (this) {
            over = overMinutes(minute);
            String key = counts.containsKey(source) || counts.size() < SOURCES ? source : "(many)";
            long[] c = counts.computeIfAbsent(key, k -> new long[] {minute, 0});
            c[1]++;
            first = c[1] == 1;
            source = key;
        }
        try {
            for (Object[] o : over) {
                JsonObject d = new JsonObject();
                d.addProperty("minute", Json.iso((Long) o[1] * 60_000));
                d.addProperty("more", (Long) o[2]);
                audit.log("(anonymous)", "refused-repeated", (String) o[0], d);
            }
            if (first) {
                JsonObject d = new JsonObject();
                d.addProperty("status", status);
                d.addProperty("method", method);
                d.addProperty("path", Input.shown(path));
                audit.log("(anonymous)", "refused", source, d);
            }
        } catch (SQLException e) {
            LOG.warn("cannot audit a refused request from {}: {}", source, Db.rootMessage(e));
        }
    }

    /** Takes the counts of minutes before {@code minute} out: {source, minute, refusals after the first}. */
    private List<Object[]> overMinutes(long minute) {
        List<Object[]> over = new ArrayList<>();
        counts.entrySet().removeIf(e -> {
            if (e.getValue()[0] >= minute) {
                return false;
            }
            if (e.getValue()[1] > 1) {
                over.add(new Object[] {e.getKey(), e.getValue()[0], e.getValue()[1] - 1});
            }
            return true;
        });
        return over;
    }

    /** Writes what is counted (at the control room's stop). */
    void flush() {
        refusedNone(Long.MAX_VALUE);
    }

    private void refusedNone(long minute) {
        List<Object[]> over;
        synchronized (this) {
            over = overMinutes(minute);
        }
        for (Object[] o : over) {
            JsonObject d = new JsonObject();
            d.addProperty("minute", Json.iso((Long) o[1] * 60_000));
            d.addProperty("more", (Long) o[2]);
            try {
                audit.log("(anonymous)", "refused-repeated", (String) o[0], d);
            } catch (SQLException e) {
                LOG.warn("cannot audit refused requests from {}: {}", o[0], Db.rootMessage(e));
            }
        }
    }
}
