package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.mqtt.protocol.Topics;

/**
 * The dispatcher with the verb families a station really has: the plan verbs are absent
 * when their family is (no rtbox.plan), every other verb still answers, and the envelope
 * rules (repeat, expiry, unknown verb) hold whichever families are there.
 */
class DispatcherTest {
    private static final String A = "a1";

    @TempDir
    Path dir;

    private Outbox outbox;
    private Dispatcher dispatcher;
    private final AtomicInteger executed = new AtomicInteger();

    /** A family of one verb that counts its calls. */
    private final Verbs echo = new Verbs() {
        @Override
        public Set<String> verbs() {
            return Set.of("selftest");
        }

        @Override
        public Reply execute(String verb, JsonObject body, String requestId, Station station) {
            executed.incrementAndGet();
            return Reply.ok("ran " + executed.get());
        }
    };

    @BeforeEach
    void station() throws Exception {
        outbox = new Outbox(dir.resolve("outbox"), 1 << 20);
        Station s = new Station(A, null, dir, dir.resolve("plans"), outbox, null, null);
        dispatcher = new Dispatcher(s, new Requests(dir.resolve("requests.log"), 100));
        s.verbs(dispatcher::verbs);
        dispatcher.add(echo);
    }

    private JsonObject send(String verb, String requestId, String extra) throws Exception {
        int before = outbox.size();
        String expires = extra.contains("expires") ? "" : ",\"expires\":\"" + java.time.Instant.now().plusSeconds(60) + "\"";
        String body = "{\"requestId\":\"" + requestId + "\"" + expires + extra + "}";
        dispatcher.command(Topics.command(A, verb), body.getBytes(StandardCharsets.UTF_8), false);
        List<Outbox.Entry> all = outbox.all();
        assertEquals(before + 1, all.size(), "one reply per command");
        Outbox.Entry reply = all.get(all.size() - 1);
        assertEquals(Topics.reply(A, requestId), reply.topic());
        return JsonParser.parseString(new String(reply.payload(), StandardCharsets.UTF_8)).getAsJsonObject();
    }

    @Test
    void withoutThePlanFamilyThePlanVerbsSayWhatIsMissingAndTheOthersAnswer() throws Exception {
        JsonObject plan = send("plan", "r1", ",\"name\":\"quick\"");
        assertEquals(404, plan.get("code").getAsInt(), plan.toString());
        String msg = plan.get("message").getAsString();
        assertTrue(msg.contains("not available on a1") && msg.contains("rtbox.plan") && msg.contains("selftest"), msg);
        assertEquals(404, send("results", "r2", "").get("code").getAsInt());
        assertEquals(200, send("selftest", "r3", "").get("code").getAsInt());
        assertEquals(Set.of("selftest"), dispatcher.verbs());

        JsonObject unknown = send("frobnicate", "r4", "");
        assertEquals(404, unknown.get("code").getAsInt());
        assertTrue(unknown.get("message").getAsString().startsWith("unknown verb 'frobnicate': known are run, plan"),
                unknown.toString());
    }

    @Test
    void aFamilyAddedLaterAnswersAndOneRemovedIsGone() throws Exception {
        dispatcher.remove(echo);
        assertEquals(404, send("selftest", "r1", "").get("code").getAsInt());
        dispatcher.add(echo);
        assertEquals(200, send("selftest", "r2", "").get("code").getAsInt());
    }

    @Test
    void aRepeatIsAnsweredWithTheFirstReplyAndNotExecuted() throws Exception {
        send("selftest", "r1", "");
        byte[] first = outbox.all().get(0).payload();
        send("selftest", "r1", "");
        assertEquals(1, executed.get(), "the repeat ran again");
        assertArrayEquals(first, outbox.all().get(1).payload());
    }

    @Test
    void anExpiredCommandIsRefusedNotExecuted() throws Exception {
        JsonObject r = send("selftest", "r1", ",\"expires\":\"2000-01-01T00:00:00Z\"");
        assertEquals(400, r.get("code").getAsInt());
        assertTrue(r.get("message").getAsString().contains("expired"), r.toString());
        assertEquals(0, executed.get());
    }
}
