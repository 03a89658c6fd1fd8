package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonObject;

/**
 * The long poll {@code GET /api/v1/runs/APPLIANCE/RUN/wait?timeout=S} (docs/control-api.md):
 * answers as soon as the run has its verdict, or after {@code S} seconds without one, so that a
 * CI job with curl waits for a run's end without an event-stream parser. It listens to the
 * event bus for the run's messages (published once stored) and looks at the run's row at each,
 * and every {@link #RECHECK_MS} besides (an event lost to a full queue costs at most that).
 */
final class RunWait {
    static final int DEFAULT_S = 30, MAX_S = 50; // under Jetty's 60 s idle timeout
    private static final long RECHECK_MS = 2_000;
    private final Db db;
    private final Events events;

    RunWait(Db db, Events events) {
        this.db = db;
        this.events = events;
    }

    /**
     * {@code {"appliance","run","done":bool,"verdict","reason","state"}}; {@code done} false
     * after the timeout. A run the control room does not know is a 404.
     */
    JsonObject await(String appliance, String run, int timeoutS, java.util.function.BooleanSupplier running)
            throws SQLException, InterruptedException {
        Events.Subscriber sub = events.subscribe(Set.of(appliance), run, false);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
            while (true) {
                JsonObject o = state(appliance, run);
                long left = end - System.nanoTime();
                if (o.get("done").getAsBoolean() || left <= 0 || !running.getAsBoolean()) {
                    return o;
                }
                sub.queue.poll(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, RECHECK_MS), TimeUnit.MILLISECONDS);
                sub.queue.clear();
            }
        } finally {
            events.unsubscribe(sub);
        }
    }

    private JsonObject state(String appliance, String run) throws SQLException {
        try (Connection c = db.connection()) {
            JsonObject o = Sql.one(c, "SELECT verdict, reason, state FROM run WHERE appliance = ? AND run_id = ?", rs -> {
                JsonObject r = new JsonObject();
                r.addProperty("appliance", appliance);
                r.addProperty("run", run);
                r.addProperty("done", rs.getString("verdict") != null);
                r.addProperty("verdict", rs.getString("verdict"));
                r.addProperty("reason", rs.getString("reason"));
                r.addProperty("state", rs.getString("state") != null ? rs.getString("state")
                        : rs.getString("verdict") == null ? "running" : null);
                return r;
            }, appliance, run);
            if (o == null) {
                throw new NotFound("no run '" + Input.shown(run) + "' of appliance '" + Input.shown(appliance) + "'");
            }
            return o;
        }
    }
}
