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
            if (body.has("probe")) {
                // As a family does with a value it cannot find: echoes it.
                return Reply.notFound("unknown probe '" + body.get("probe").getAsString() + "'");
            }
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

    private JsonObject last() throws java.io.IOException {
        List<Outbox.Entry> all = outbox.all();
        return JsonParser.parseString(new String(all.get(all.size() - 1).payload(), StandardCharsets.UTF_8))
                .getAsJsonObject();
    }

    @Test
    void anOversizedCommandIsAnswered413WithoutBeingReadAndARepeatGetsTheSameReply() throws Exception {
        byte[] head = ("{\"requestId\":\"big-1\",\"expires\":\"" + java.time.Instant.now().plusSeconds(60)
                + "\",\"probe\":\"xxxx").getBytes(StandardCharsets.UTF_8);
        dispatcher.oversized(Topics.command(A, "selftest"), 12_000_000, 2_097_152, head, false);
        assertEquals(Topics.reply(A, "big-1"), outbox.all().get(0).topic());
        JsonObject r = last();
        assertEquals(413, r.get("code").getAsInt(), r.toString());
        String m = r.get("message").getAsString();
        assertTrue(m.contains("12000000 bytes") && m.contains("at most 2097152") && m.contains("maxCommandBytes"), m);
        assertEquals(0, executed.get());
        dispatcher.oversized(Topics.command(A, "selftest"), 12_000_000, 2_097_152, head, false);
        assertArrayEquals(outbox.all().get(0).payload(), outbox.all().get(1).payload());

        // No request id in the head: answered on reply/none.
        dispatcher.oversized(Topics.command(A, "install"), 5_000_000, 2_097_152, "{\"data\":\"AAAA".getBytes(
                StandardCharsets.UTF_8), false);
        assertEquals(Topics.reply(A, Topics.NO_REQUEST_ID), outbox.all().get(2).topic());
        assertTrue(last().get("message").getAsString().contains("by url"), last().toString());
    }

    @Test
    void aHugeValueIsCutInTheReplyAndInRequestsLog() throws Exception {
        String huge = "p".repeat(1 << 20);
        JsonObject r = send("selftest", "r1", ",\"probe\":\"" + huge + "\"");
        assertEquals(404, r.get("code").getAsInt());
        String m = r.get("message").getAsString();
        assertTrue(m.length() <= Dispatcher.MAX_MESSAGE && m.startsWith("unknown probe 'ppp")
                && m.endsWith(" characters, cut)"), m.substring(0, Math.min(200, m.length())));
        assertTrue(java.nio.file.Files.size(dir.resolve("requests.log")) < 4096,
                "requests.log: " + java.nio.file.Files.size(dir.resolve("requests.log")));

        // A 1 MiB request id: refused, shown cut.
        dispatcher.command(Topics.command(A, "selftest"), ("{\"requestId\":\"" + huge + "\"}").getBytes(
                StandardCharsets.UTF_8), false);
        String none = last().get("message").getAsString();
        assertTrue(none.length() < 300 && none.contains("requestId: 'pppp") && none.contains("1048576 characters"), none);
        // A 64 kB verb: cut too.
        dispatcher.command(Topics.command(A, "v".repeat(65_000)), ("{\"requestId\":\"r2\",\"expires\":\""
                + java.time.Instant.now().plusSeconds(60) + "\"}").getBytes(StandardCharsets.UTF_8), false);
        assertTrue(last().get("verb").getAsString().length() <= Dispatcher.MAX_VERB, last().get("verb").getAsString());
        assertTrue(last().get("message").getAsString().length() <= Dispatcher.MAX_MESSAGE);
        assertTrue(java.nio.file.Files.size(dir.resolve("requests.log")) < 8192);
    }

    @Test
    void notStrictJsonIsRefusedNamingTheField() throws Exception {
        dispatcher.command(Topics.command(A, "selftest"), "{requestId:\"r1\"}".getBytes(StandardCharsets.UTF_8),
                false);
        assertEquals(400, last().get("code").getAsInt());
        dispatcher.command(Topics.command(A, "selftest"), ("{\"requestId\":12,\"expires\":\""
                + java.time.Instant.now().plusSeconds(60) + "\"}").getBytes(StandardCharsets.UTF_8), false);
        assertEquals(400, last().get("code").getAsInt());
        assertTrue(last().get("message").getAsString().contains("requestId: expected a string, got 12"),
                last().toString());
        assertEquals(0, executed.get());
    }

    @Test
    void anEmptyVerbAndASchemaObjectAre4xxNotAJavaException() throws Exception {
        String expires = ",\"expires\":\"" + java.time.Instant.now().plusSeconds(60) + "\"";
        dispatcher.command(Topics.ROOT + "/down/" + A + "/cmd/", ("{\"requestId\":\"e1\"" + expires + "}").getBytes(
                StandardCharsets.UTF_8), false);
        JsonObject r = last();
        assertTrue(r.get("code").getAsInt() >= 400 && r.get("code").getAsInt() < 500, r.toString());
        assertTrue(!r.get("message").getAsString().contains("Exception"), r.toString());
        dispatcher.command(Topics.command(A, "selftest"), ("{\"requestId\":\"e2\",\"schema\":{}" + expires + "}")
                .getBytes(StandardCharsets.UTF_8), false);
        r = last();
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("schema"), r.toString());
        assertEquals(0, executed.get());
    }
}
