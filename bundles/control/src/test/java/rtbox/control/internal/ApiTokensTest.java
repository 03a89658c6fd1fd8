package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;

/**
 * API tokens on H2 and a real PostgreSQL (the V7 migration on each): made with a role at most
 * the user's, kept only as SHA-256, refused at once when revoked, expired or their user
 * deleted, capped by the user's role of the moment, and their uses counted in the audit.
 */
class ApiTokensTest extends BothDatabases {

    private static JsonObject body(String json) {
        return Json.body(json.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void madeShownOnceStoredHashedAndRefusedAtOnceWhenRevoked(String kind) throws Exception {
        Db db = db(kind);
        Users users = new Users(db);
        Audit audit = new Audit(db);
        ApiTokens tokens = new ApiTokens(db, audit);
        users.add("system", "olga", Role.OPERATOR, "twelve-chars-at-least");
        Users.Session olga = new Users.Session("cookie", "olga", Role.OPERATOR, "csrf");

        BadRequest above = assertThrows(BadRequest.class, () -> tokens.create(olga, body("{\"name\":\"ci\",\"role\":\"admin\"}")));
        assertEquals(403, above.status);
        assertTrue(above.getMessage().startsWith("$.role: a token has at most your role (operator)"), above.getMessage());
        assertTrue(assertThrows(BadRequest.class, () -> tokens.create(olga, body("{\"name\":\"ci\",\"colour\":1}")))
                .getMessage().contains("colour"));
        assertTrue(assertThrows(BadRequest.class, () -> tokens.create(olga,
                body("{\"name\":\"ci\",\"expires\":\"2001-01-01T00:00:00Z\"}"))).getMessage()
                .startsWith("$.expires: 2001-01-01T00:00:00Z is not in the future"));
        assertTrue(assertThrows(BadRequest.class, () -> tokens.create(olga, body("{\"name\":\"c i\"}")))
                .getMessage().startsWith("$.name:"));

        JsonObject made = tokens.create(olga, body("{\"name\":\"ci\"}"));
        String token = made.get("token").getAsString();
        assertTrue(token.matches("rtbox_[A-Za-z0-9_-]{43}"), token);
        assertEquals("operator", made.get("role").getAsString());
        assertEquals(409, assertThrows(BadRequest.class, () -> tokens.create(olga, body("{\"name\":\"ci\"}"))).status);
        // Stored as its SHA-256 only; never listed.
        try (Connection c = db.connection()) {
            assertEquals(Passwords.sha256(token.getBytes(StandardCharsets.UTF_8)),
                    Sql.one(c, "SELECT token_sha256 FROM api_token", rs -> rs.getString(1)));
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM api_token WHERE token_sha256 = ?", token));
        }
        assertFalse(tokens.list("olga").toString().contains(token));

        Users.Session s = tokens.use(token, "GET", "/fleet");
        assertEquals("olga", s.user());
        assertEquals(Role.OPERATOR, s.role());
        assertEquals("ci", s.apiToken());
        assertEquals(null, s.csrf());
        assertEquals(401, assertThrows(BadRequest.class, () -> tokens.use(token + "x", "GET", "/fleet")).status);

        // A lower role is the token's; a user demoted later caps it.
        String viewer = tokens.create(olga, body("{\"name\":\"dash\",\"role\":\"viewer\"}")).get("token").getAsString();
        assertEquals(Role.VIEWER, tokens.use(viewer, "GET", "/fleet").role());
        users.add("system", "root2", Role.ADMIN, "twelve-chars-at-least");
        users.change("root2", "olga", Role.VIEWER, null);
        assertEquals(Role.VIEWER, tokens.use(token, "GET", "/fleet").role());

        // Revoked: 401 at its next use, naming the token; the row stays for the audit.
        long id = made.get("id").getAsLong();
        Users.Session bob = new Users.Session("c", "bob", Role.OPERATOR, "x");
        assertEquals(404, assertThrows(BadRequest.class, () -> tokens.revoke(bob, id)).status);
        assertEquals("revoked", tokens.revoke(olga, id).get("state").getAsString());
        BadRequest revoked = assertThrows(BadRequest.class, () -> tokens.use(token, "GET", "/fleet"));
        assertEquals(401, revoked.status);
        assertTrue(revoked.getMessage().startsWith("API token 'ci' was revoked at "), revoked.getMessage());
        // The name is free again once revoked.
        tokens.create(olga, body("{\"name\":\"ci\"}"));

        // Expired: 401 naming when.
        String shortLived = tokens.create(olga, body("{\"name\":\"brief\",\"expires\":\""
                + java.time.Instant.now().plusMillis(300) + "\"}")).get("token").getAsString();
        tokens.use(shortLived, "GET", "/fleet");
        long until = System.currentTimeMillis() + 5_000;
        BadRequest expired = null;
        while (expired == null && System.currentTimeMillis() < until) {
            try {
                tokens.use(shortLived, "GET", "/fleet");
                Thread.onSpinWait();
            } catch (BadRequest e) {
                expired = e;
            }
        }
        assertTrue(expired != null && expired.status == 401 && expired.getMessage().contains("expired at"),
                String.valueOf(expired));

        // A deleted user's tokens are revoked: a user made again with that name does not inherit them.
        users.delete("root2", "olga");
        assertEquals(401, assertThrows(BadRequest.class, () -> tokens.use(viewer, "GET", "/fleet")).status);
        users.add("root2", "olga", Role.ADMIN, "twelve-chars-at-least");
        assertEquals(401, assertThrows(BadRequest.class, () -> tokens.use(viewer, "GET", "/fleet")).status);

        // Uses counted per token and minute: the audit has token-use and token-use-repeated, never one per request.
        tokens.flush();
        JsonObject uses = audit.list(null, "token-use", null, null, 0, 100);
        assertTrue(uses.get("total").getAsLong() >= 2 && uses.get("total").getAsLong() <= 4, uses.toString());
        assertTrue(uses.toString().contains("\"target\":\"ci\""), uses.toString());
        assertTrue(audit.list(null, "token-add", null, null, 0, 100).get("total").getAsLong() >= 3);
        assertEquals(1, audit.list(null, "token-revoke", null, null, 0, 100).get("total").getAsLong());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aFloodOfUsesIsTwoAuditEntriesAMinute(String kind) throws Exception {
        Db db = db(kind);
        Users users = new Users(db);
        Audit audit = new Audit(db);
        users.add("system", "ci", Role.OPERATOR, "twelve-chars-at-least");
        CountedAudit counted = new CountedAudit(audit, "token-use", 4096);
        for (int i = 0; i < 1000; i++) {
            counted.count("ci", "gate", new JsonObject(), 100 + i / 500);
        }
        counted.flush();
        assertEquals(2, audit.list(null, "token-use", null, null, 0, 100).get("total").getAsLong());
        JsonObject repeated = audit.list(null, "token-use-repeated", null, null, 0, 100);
        assertEquals(2, repeated.get("total").getAsLong(), repeated.toString());
        assertTrue(repeated.toString().contains("\"more\":499"), repeated.toString());
    }
}
