package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The plan library's versions on H2 and a real PostgreSQL: a save adds a version and keeps
 * the old one readable, a file's plan is imported once, a changed file adds a version only
 * while nobody saved on top of it, every addition is audited.
 */
class PlanStoreTest extends BothDatabases {
    private static final String V1 = "{\"rtbox_plan\":1,\"name\":\"p\",\"probe\":\"timer\",\"duration\":\"1s\"}";
    private static final String V2 = V1.replace("1s", "2s");
    private static final String V3 = V1.replace("1s", "3s");

    @ParameterizedTest
    @MethodSource("databases")
    void savesVersionsAndKeepsTheOld(String kind) throws Exception {
        PlanStore store = new PlanStore(db(kind));
        PlanStore.Version a = store.importFile("p", V1, PlanStore.SHIPPED);
        assertEquals(1, a.version());
        assertNull(store.importFile("p", V1, PlanStore.SHIPPED), "the same file imported twice");
        PlanStore.Version b = store.save("p", V2, "alice");
        assertEquals(2, b.version());
        assertEquals("alice", b.createdBy());
        assertEquals(Passwords.sha256(V2.getBytes(java.nio.charset.StandardCharsets.UTF_8)), b.sha256());
        assertEquals(2, store.save("p", V2, "bob").version(), "an unchanged save adds no version");
        assertEquals(V1, store.get("p", 1).text());
        assertEquals(V2, store.get("p", null).text());
        // The shipped file changed (a new rtbox) after alice's save: her version stays the newest.
        assertNull(store.importFile("p", V3, PlanStore.SHIPPED));
        assertEquals(2, store.versions("p").size());
        assertEquals(List.of("p"), store.latest().stream().map(PlanStore.Version::name).toList());
        assertEquals(404, assertThrows(NotFound.class, () -> store.get("p", 7)).status);
        assertEquals(404, assertThrows(NotFound.class, () -> store.get("q", null)).status);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aChangedFileAddsAVersionWhileNobodySavedAndIsAudited(String kind) throws Exception {
        Db db = db(kind);
        PlanStore store = new PlanStore(db);
        store.importFile("p", V1, PlanStore.FOLDER);
        assertEquals(2, store.importFile("p", V2, PlanStore.FOLDER).version());
        // going back to the first text adds nothing: it is a version already
        assertNull(store.importFile("p", V1, PlanStore.FOLDER));
        store.save("p", V3, "alice");
        try (Connection c = db.connection()) {
            assertEquals(2, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'plan-import' AND target = 'p'"
                    + " AND user_name = 'rtbox'"));
            String detail = Sql.one(c, "SELECT detail FROM audit WHERE action = 'plan-save' AND user_name = 'alice'",
                    rs -> rs.getString(1));
            assertTrue(detail.contains("\"version\":3") && detail.contains(Passwords.sha256(
                    V3.getBytes(java.nio.charset.StandardCharsets.UTF_8))), detail);
        }
    }
}
