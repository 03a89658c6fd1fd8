package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;

/**
 * The queue of starts on H2 and a real PostgreSQL: the oldest start goes first and only to an
 * idle appliance; an unanswered send keeps its request id for the next try, a 409 gets a new
 * one; after a start the next waits for the appliance's busy-then-idle statuses; cancel by
 * the owner or an admin only. The starter here records what would be sent (the sending is
 * ControlQueueIT's, with the real appliance).
 */
class StartQueueTest extends BothDatabases {
    private final List<String> sent = new ArrayList<>();
    private final List<Integer> codes = new ArrayList<>();

    private StartQueue queue(Db db) {
        StartQueue q = new StartQueue(db, (user, target, plan, text, sha, forRecord, requestId) -> {
            sent.add(requestId);
            JsonObject a = new JsonObject();
            int code = codes.isEmpty() ? 200 : codes.remove(0);
            a.addProperty("code", code);
            a.addProperty("run", code == 200 ? "r" + sent.size() : null);
            return a;
        });
        q.events(new Events());
        return q;
    }

    private static StartRequests.Prepared start(String serial) {
        JsonObject t = new JsonObject();
        t.addProperty("appliance", "a1");
        t.addProperty("serial", serial);
        String text = "{\"rtbox_plan\":1,\"name\":\"q\",\"probe\":\"timer\",\"duration\":\"1s\"}";
        return new StartRequests.Prepared(t, Json.parse(text), text, "0".repeat(64), false);
    }

    private static void appliance(Db db, boolean busy) throws Exception {
        try (Connection c = db.connection()) {
            if (Sql.update(c, "UPDATE appliance SET busy = ? WHERE id = 'a1'", busy) == 0) {
                Sql.update(c, "INSERT INTO appliance (id, state, busy, last_seen_ms, registered) VALUES ('a1', 'online',"
                        + " ?, 0, ?)", busy, true);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void oldestFirstOnlyWhenIdleAndCancelByOwner(String kind) throws Exception {
        Db db = db(kind);
        StartQueue q = queue(db);
        appliance(db, true);
        long first = q.enqueue("alice", start("SN-1"), "q", 1);
        long second = q.enqueue("bob", start("SN-2"), "q", 1);
        long third = q.enqueue("bob", start("SN-3"), "q", 1);
        assertNull(q.kick("a1"), "sent to a busy appliance");
        assertEquals(List.of(), q.ready(), "ready while busy");
        appliance(db, false);
        assertEquals(List.of("a1"), q.ready());
        codes.add(504); // no answer: stays queued, the same request id next time
        assertEquals(504, Json.integer(q.kick("a1"), "code"));
        assertEquals("queued", Json.string(q.one(first), "state"));
        codes.add(409); // busy after all: a new request id next time
        q.kick("a1");
        JsonObject started = q.kick("a1");
        assertEquals(first, Json.whole(started, "queued"));
        assertEquals(sent.get(0), sent.get(1), "an unanswered send is repeated with its request id");
        assertEquals(false, sent.get(1).equals(sent.get(2)), "a refused send is not repeated with its id");
        assertEquals("started", Json.string(q.one(first), "state"));
        assertEquals("r3", Json.string(q.one(first), "run"));
        // right after a start the appliance still looks idle: the next waits for its busy and idle statuses
        assertNull(q.kick("a1"));
        q.status("a1", true);
        q.status("a1", false);
        assertEquals(1, q.position(second));
        assertEquals(403, assertThrows(BadRequest.class, () -> q.cancel("alice", false, second)).status);
        assertEquals("cancelled", Json.string(q.cancel("alice", true, second), "state"), "an admin may");
        assertEquals(409, assertThrows(BadRequest.class, () -> q.cancel("bob", false, second)).status);
        assertEquals(third, Json.whole(q.kick("a1"), "queued"), "the cancelled one is skipped");
        assertEquals(0, q.pending("a1").getAsJsonArray("queue").size());
        try (Connection c = db.connection()) {
            assertEquals(3, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'start-queued'"));
            assertEquals(1, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'start-cancel'"));
        }
    }
}
