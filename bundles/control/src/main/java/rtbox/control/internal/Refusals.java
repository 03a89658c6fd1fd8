package rtbox.control.internal;

import com.google.gson.JsonObject;

/**
 * Refused requests (401 not logged in or a bad API token, 403 no CSRF token, a foreign origin,
 * a role too low) in the audit log, counted per source address and minute ({@link CountedAudit}):
 * a source's first refusal of a minute is a {@code refused} entry (status, method, path), the
 * rest of that minute one {@code refused-repeated} entry; at most {@link #SOURCES} sources
 * tracked at once (past that, the others share the source {@code (many)}).
 */
final class Refusals {
    static final int SOURCES = 4096;
    private final CountedAudit counted;

    Refusals(Audit audit) {
        this.counted = new CountedAudit(audit, "refused", SOURCES);
    }

    void refused(String source, int status, String method, String path) {
        refused(source, status, method, path, System.currentTimeMillis() / 60_000);
    }

    void refused(String source, int status, String method, String path, long minute) {
        JsonObject d = new JsonObject();
        d.addProperty("status", status);
        d.addProperty("method", method);
        d.addProperty("path", Input.shown(path));
        counted.count("(anonymous)", source, d, minute);
    }

    /** Writes what is counted (at the control room's stop). */
    void flush() {
        counted.flush();
    }
}
