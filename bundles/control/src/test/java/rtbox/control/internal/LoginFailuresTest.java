package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The lock after failed log-ins, and the bound on the names it keeps. */
class LoginFailuresTest {

    @Test
    void aNameIsLockedAfterItsFailuresUntilTheWindowEndsAndFreedByASuccess() {
        LoginFailures f = new LoginFailures(3, 60_000);
        f.failed("olga", 0);
        f.failed("olga", 10_000);
        assertFalse(f.locked("olga", 10_000));
        f.failed("olga", 20_000);
        assertTrue(f.locked("olga", 20_000));
        assertTrue(f.locked("olga", 59_999), "the window runs from the first failure");
        assertFalse(f.locked("olga", 60_000));
        assertFalse(f.locked("ivan", 20_000), "another name is not locked");
        f.failed("ivan", 0);
        f.failed("ivan", 0);
        f.failed("ivan", 0);
        f.succeeded("ivan");
        assertFalse(f.locked("ivan", 1));
    }

    @Test
    void everNewNamesDoNotGrowTheMapBeyondOneWindow() {
        LoginFailures f = new LoginFailures(5, 60_000);
        for (int i = 0; i < 5 * LoginFailures.PRUNE_AT; i++) {
            f.failed("guess" + i, i * 100L); // 10 a second, 600 a window
        }
        assertTrue(f.names() <= LoginFailures.PRUNE_AT + 600, "names kept: " + f.names());
        // A name within its window is never dropped by the pruning, however many come after it.
        LoginFailures g = new LoginFailures(2, 60_000);
        g.failed("olga", 0);
        g.failed("olga", 0);
        for (int i = 0; i < 3 * LoginFailures.PRUNE_AT; i++) {
            g.failed("guess" + i, 1_000 + i);
        }
        assertTrue(g.locked("olga", 59_000));
        assertEquals(3 * LoginFailures.PRUNE_AT + 1, g.names(), "nothing expired yet, so nothing dropped");
    }
}
