package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Users.login's lock on H2 and a real PostgreSQL: after 5 wrong passwords, 429 even for the right one. */
class LoginLockTest extends BothDatabases {

    @ParameterizedTest
    @MethodSource("databases")
    void fiveWrongPasswordsLockTheNameAndOnlyThatName(String kind) throws Exception {
        Users users = new Users(db(kind));
        users.add("system", "olga", Role.OPERATOR, "twelve-chars-at-least");
        users.add("system", "ivan", Role.OPERATOR, "twelve-chars-at-least");
        for (int i = 0; i < 5; i++) {
            assertNull(users.login("olga", "wrong-password-" + i));
        }
        BadRequest locked = assertThrows(BadRequest.class, () -> users.login("olga", "twelve-chars-at-least"));
        assertEquals(429, locked.status);
        assertTrue(locked.getMessage().contains("'olga'"), locked.getMessage());
        assertNotNull(users.login("ivan", "twelve-chars-at-least"), "another name is not locked");
    }
}
