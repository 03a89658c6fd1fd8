package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Shows an appliance offline when it has not been heard from for {@code silentAfterSeconds}
 * although no offline status came. On a clustered broker an appliance's last will is held
 * by the node it is connected to, and dies with that node (docs/fleet.md); a live appliance
 * repeats its status every {@code statusHeartbeatSeconds} and answers the control room's
 * announce, so silence is what tells that it is gone. Every instance may sweep: the update
 * checks the silence again row by row, so a status that arrives meanwhile wins.
 */
final class Silence {
    private final Db db;
    private final long silentAfterMs;

    Silence(Db db, long silentAfterMs) {
        this.db = db;
        this.silentAfterMs = silentAfterMs;
    }

    /** Marks the appliances silent since before {@code now - silentAfter} offline; returns their ids. */
    List<String> sweep(long now) throws SQLException {
        long before = now - silentAfterMs;
        List<String> marked = new ArrayList<>();
        try (Connection c = db.connection()) {
            for (String id : Sql.list(c, "SELECT id FROM appliance WHERE state <> 'offline' AND last_seen_ms < ?",
                    rs -> rs.getString(1), before)) {
                if (Sql.update(c, "UPDATE appliance SET state = 'offline', busy = ?, run_id = NULL WHERE id = ?"
                        + " AND state <> 'offline' AND last_seen_ms < ?", false, id, before) == 1) {
                    marked.add(id);
                }
            }
        }
        return marked;
    }
}
