package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpServer;

/**
 * Webhooks on H2 and a real PostgreSQL (the V11 migration on each): the admin's checks, each
 * naming its field; the secret shown once, sealed in the database (not there as it is, not
 * opening for another URL), never listed nor audited; the outbox written by the ingest's own
 * transaction (a FAIL of the site, not a PASS nor another site's); a real HTTP receiver (the
 * JDK's server) answering 500 first: the delivery retried after its backoff, signed each time,
 * acknowledged once; an offline spell told once per webhook; a run outside its golden envelope and
 * a record issued told with their figures.
 */
class WebhooksTest extends BothDatabases {

    private static JsonObject body(String json) {
        return Json.body(json.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void checkedSecretShownOnceSealedNeverListedNorAudited(String kind) throws Exception {
        Db db = db(kind);
        WebhookSecrets secrets = WebhookSecrets.open(tmp.resolve("control"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("control")
                .resolve(WebhookSecrets.FILE))));
        Webhooks hooks = new Webhooks(db, secrets);
        for (String[] bad : new String[][] {
            {"{\"url\":\"https://h/x\",\"events\":[\"run.verdict\"]}", "$.site: required"},
            {"{\"site\":\"p\",\"url\":\"ftp://h/x\",\"events\":[\"run.verdict\"]}", "$.url: http:// or https://"},
            {"{\"site\":\"p\",\"url\":\"https://u:pw@h/x\",\"events\":[\"run.verdict\"]}", "$.url: no user or password"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[\"run.verdict\",\"run.pass\"]}", "$.events[1]: 'run.pass'"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[]}", "$.events: at least one"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[\"appliance.offline\"]}", "$.offline_after_s: required"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[\"appliance.offline\"],\"offline_after_s\":1}",
                "$.offline_after_s: 10 to"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[\"run.verdict\"],\"secret\":\"short\"}",
                "$.secret: at least 16"},
            {"{\"site\":\"p\",\"url\":\"https://h/x\",\"events\":[\"run.verdict\"],\"colour\":1}", "colour"}}) {
            BadRequest e = assertThrows(BadRequest.class, () -> hooks.create("admin", body(bad[0])), bad[0]);
            assertEquals(400, e.status);
            assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
        }
        String url = "https://hooks.example/services/T0/B0/credential-in-the-path";
        JsonObject made = hooks.create("admin", body("{\"site\":\"plant1\",\"url\":\"" + url
                + "\",\"events\":[\"run.verdict\",\"record.issued\"]}"));
        String secret = made.get("secret").getAsString();
        assertTrue(secret.matches("whsec_[A-Za-z0-9_-]{43}"), secret);
        String listed = hooks.list().toString();
        assertFalse(listed.contains(secret), listed);
        assertTrue(listed.contains("\"events\":[\"run.verdict\",\"record.issued\"]"), listed);
        try (Connection c = db.connection()) {
            String sealed = Sql.one(c, "SELECT secret FROM webhook", rs -> rs.getString(1));
            assertFalse(sealed.contains(secret) || sealed.contains(secret.substring(6)), sealed);
            assertEquals(secret, secrets.open(sealed, url));
            assertThrows(java.io.IOException.class, () -> secrets.open(sealed, "https://attacker.example/x"));
            String audit = String.join("\n", Sql.list(c, "SELECT action || ' ' || detail FROM audit", rs -> rs.getString(1)));
            assertTrue(audit.contains("webhook-add") && audit.contains("https://hooks.example/..."), audit);
            assertFalse(audit.contains(secret) || audit.contains("credential-in-the-path"), audit);
        }
        // A secret of one's own: kept as given.
        JsonObject own = hooks.create("admin", body("{\"site\":\"*\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                + "[\"appliance.offline\"],\"offline_after_s\":60,\"secret\":\"a-secret-of-my-own\"}"));
        assertEquals("a-secret-of-my-own", own.get("secret").getAsString());
        hooks.delete("admin", made.get("id").getAsLong());
        assertEquals(1, hooks.list().getAsJsonArray("webhooks").size());
        assertEquals(404, assertThrows(NotFound.class, () -> hooks.delete("admin", 999)).status);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aFailOfTheSiteIsSignedRetriedAfterA500AndAcknowledgedOnce(String kind) throws Exception {
        Db db = db(kind);
        WebhookSecrets secrets = WebhookSecrets.open(tmp.resolve("control"));
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        List<String> problems = new CopyOnWriteArrayList<>();
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String[] secret = new String[1];
        receiver.createContext("/hook", x -> {
            byte[] b = x.getRequestBody().readAllBytes();
            String id = x.getRequestHeaders().getFirst("X-Rtbox-Delivery");
            long ts = Long.parseLong(x.getRequestHeaders().getFirst("X-Rtbox-Timestamp"));
            if (!WebhookSignature.sign(secret[0], ts, b).equals(x.getRequestHeaders().getFirst("X-Rtbox-Signature"))
                    || Math.abs(System.currentTimeMillis() / 1000 - ts) > 300) {
                problems.add("bad signature or time on " + id);
            }
            bodies.add(new String(b, StandardCharsets.UTF_8));
            int n = attempts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            x.sendResponseHeaders(n == 1 ? 500 : 204, -1);
            x.close();
        });
        receiver.start();
        WebhookDelivery delivery = new WebhookDelivery(db, secrets, new Compare(db, new Queries(db)), 200, 1000,
                3_600_000);
        try {
            Webhooks hooks = new Webhooks(db, secrets);
            secret[0] = hooks.create("admin", body("{\"site\":\"plant1\",\"url\":\"http://127.0.0.1:"
                    + receiver.getAddress().getPort() + "/hook\",\"events\":[\"run.verdict\"]}")).get("secret").getAsString();
            Ingest in = new Ingest(new Decoder(20 * 1024 * 1024), new IngestStore(db), new Events(), (m, o) -> { });
            for (String a : new String[] {"a1", "a2"}) {
                in.accept("rtbox/v1/up/" + a + "/status", Messages.status(a, "online", false));
            }
            try (Connection c = db.connection()) {
                Sql.update(c, "UPDATE appliance SET site = 'plant1' WHERE id = 'a1'");
                Sql.update(c, "UPDATE appliance SET site = 'plant2' WHERE id = 'a2'");
            }
            in.accept(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 0, "PASS"));
            in.accept(Messages.runTopic("a1", "r2", "result"), Messages.result("a1", "r2", 0, "FAIL"));
            in.accept(Messages.runTopic("a1", "r2", "result"), Messages.result("a1", "r2", 0, "FAIL")); // a repeat
            in.accept(Messages.runTopic("a1", "r3", "result"), Messages.result("a1", "r3", 0, "INCONCLUSIVE"));
            in.accept(Messages.runTopic("a2", "r4", "result"), Messages.result("a2", "r4", 0, "FAIL"));
            try (Connection c = db.connection()) {
                assertEquals(List.of("a1/r2 run.verdict", "a1/r3 run.verdict"), Sql.list(c, "SELECT body, event FROM"
                        + " webhook_delivery", rs -> {
                            JsonObject b = Json.parse(rs.getString(1));
                            return b.get("appliance").getAsString() + "/" + b.get("run").getAsString() + " "
                                    + rs.getString(2);
                        }).stream().sorted().toList());
            }
            delivery.start(true);
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline && delivered(db) < 2) {
                Thread.sleep(50);
            }
            assertEquals(2, delivered(db), hooks.list().toString());
            assertEquals(List.of(), problems);
            assertEquals(2, attempts.size());
            attempts.forEach((id, n) -> assertEquals(2, n.get(), id));
            assertEquals(2, delivery.failures());
            assertEquals(Map.of("plant1", 2L), delivery.failuresBySite());
            assertEquals(2, delivery.delivered());
            JsonObject d = hooks.list().getAsJsonArray("webhooks").get(0).getAsJsonObject().getAsJsonArray("deliveries")
                    .get(0).getAsJsonObject();
            assertEquals("delivered", d.get("state").getAsString());
            assertEquals(2, d.get("attempts").getAsInt());
            assertEquals(204, d.get("last_code").getAsInt());
            assertTrue(d.get("next_attempt").isJsonNull());
            // Every body as written in the outbox, with its delivery id and the verdict.
            for (String b : bodies) {
                JsonObject o = Json.parse(b);
                assertTrue(attempts.containsKey(o.get("delivery").getAsString()), b);
                assertEquals("plant1", o.get("site").getAsString(), b);
            }
            // Nothing is due even an hour on: acknowledged deliveries are never sent again.
            try (Connection c = db.connection()) {
                assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM webhook_delivery WHERE state IN ('pending', 'sending')"
                        + " AND next_ms <= ?", System.currentTimeMillis() + 3_600_000));
            }
        } finally {
            delivery.stop();
            receiver.stop(0);
        }
    }

    private static long delivered(Db db) throws Exception {
        try (Connection c = db.connection()) {
            return Sql.count(c, "SELECT COUNT(*) FROM webhook_delivery WHERE state = 'delivered'");
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void anOfflineSpellIsToldOncePerWebhook(String kind) throws Exception {
        Db db = db(kind);
        WebhookSecrets secrets = WebhookSecrets.open(tmp.resolve("control"));
        Webhooks hooks = new Webhooks(db, secrets);
        hooks.create("admin", body("{\"site\":\"plant1\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                + "[\"appliance.offline\"],\"offline_after_s\":60}"));
        hooks.create("admin", body("{\"site\":\"plant2\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                + "[\"appliance.offline\"],\"offline_after_s\":60}"));
        Ingest in = new Ingest(new Decoder(20 * 1024 * 1024), new IngestStore(db), new Events(), (m, o) -> { });
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "offline", false));
        long now = System.currentTimeMillis();
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE appliance SET site = 'plant1', last_seen_ms = ? WHERE id = 'a1'", now - 30_000);
        }
        WebhookDelivery delivery = new WebhookDelivery(db, secrets, new Compare(db, new Queries(db)), 1000, 1000, 1000);
        delivery.offline(now);
        assertEquals(0, count(db), "told before its 60 s");
        delivery.offline(now + 31_000);
        delivery.offline(now + 40_000);
        assertEquals(1, count(db));
        try (Connection c = db.connection()) {
            JsonObject b = Json.parse(Sql.one(c, "SELECT body FROM webhook_delivery", rs -> rs.getString(1)));
            assertEquals("a1", b.get("appliance").getAsString());
            assertEquals(61, b.get("offline_s").getAsLong());
            // Back, then gone again: a new spell, told again.
            Sql.update(c, "UPDATE appliance SET last_seen_ms = ? WHERE id = 'a1'", now + 50_000);
        }
        delivery.offline(now + 200_000);
        assertEquals(2, count(db));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aRecordIssuedAndARunOutsideItsEnvelopeAreTold(String kind) throws Exception {
        Db db = db(kind);
        WebhookSecrets secrets = WebhookSecrets.open(tmp.resolve("control"));
        new Webhooks(db, secrets).create("admin", body("{\"site\":\"*\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                + "[\"run.outside_envelope\",\"record.issued\"]}"));
        Compare compare = new Compare(db, new Queries(db));
        RecordsTest.run(db, "golden", "PASS", true, 60, 100);
        JsonObject req = Json.parse("{\"appliance\":\"a1\",\"run\":\"golden\",\"tolerance\":{\"max_pct\":10,"
                + "\"max_us\":5}}");
        compare.setReference("admin", req);
        RecordsTest.run(db, "same", "PASS", true, 60, 110);
        RecordsTest.run(db, "worse", "PASS", true, 60, 300);
        WebhookDelivery delivery = new WebhookDelivery(db, secrets, compare, 1000, 1000, 1000);
        delivery.envelopes(System.currentTimeMillis());
        try (Connection c = db.connection()) {
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM webhook_check"), "every run compared once");
            List<String> bodies = Sql.list(c, "SELECT body FROM webhook_delivery", rs -> rs.getString(1));
            assertEquals(1, bodies.size(), bodies.toString());
            JsonObject b = Json.parse(bodies.get(0));
            assertEquals("run.outside_envelope", b.get("event").getAsString());
            assertEquals("worse", b.get("run").getAsString());
            assertEquals("PASS; outside the envelope", b.get("reading").getAsString());
            assertTrue(b.getAsJsonArray("cells_outside").toString().contains("max_us 300.0 us > 115.0 us"), b.toString());
        }
        Records records = new Records(db, 3600_000, RecordKeys.open(Files.createTempDirectory(tmp, "k").resolve("keys")));
        JsonObject issued = records.issue("bob", "a1", "same", null, "operator");
        try (Connection c = db.connection()) {
            JsonObject b = Json.parse(Sql.one(c, "SELECT body FROM webhook_delivery WHERE event = 'record.issued'",
                    rs -> rs.getString(1)));
            assertEquals(issued.get("id").getAsLong(), b.get("record").getAsLong());
            assertEquals("SN-same", b.get("serial").getAsString());
            assertEquals("bob", b.get("signed_by").getAsString());
        }
    }

    private static long count(Db db) throws Exception {
        try (Connection c = db.connection()) {
            return Sql.count(c, "SELECT COUNT(*) FROM webhook_delivery");
        }
    }
}
