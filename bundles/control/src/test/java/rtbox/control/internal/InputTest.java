package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** User names, passwords and plan names get the text checks serial and model get, each refusal naming its field. */
class InputTest {
    private static String refused(Runnable r) {
        BadRequest e = assertThrows(BadRequest.class, r::run);
        assertEquals(400, e.status);
        return e.getMessage();
    }

    @Test
    void passwords() {
        assertEquals("correct horse battery", Input.password("$.password", "correct horse battery", true));
        assertTrue(refused(() -> Input.password("$.new", "short", true)).startsWith("$.new: a password needs at least 12"));
        // An old password is not held to today's length rule (it is only compared).
        assertEquals("short", Input.password("$.old", "short", false));
        assertTrue(refused(() -> Input.password("$.password", "x".repeat(1025), true))
                .startsWith("$.password: at most 1024 characters, not 1025"));
        assertTrue(refused(() -> Input.password("$.password", "twelve chars\u0000!", true))
                .startsWith("$.password: a control character (U+0000)"));
        assertTrue(refused(() -> Input.password("$.password", "twelve \u202Echars!", true))
                .startsWith("$.password: a bidirectional override (U+202E)"));
    }

    @Test
    void userNames() {
        assertEquals("vera.k", Input.user("user name", "vera.k"));
        assertTrue(refused(() -> Input.user("user name", "nimda\u202E")).startsWith("user name: a bidirectional override"));
        assertTrue(refused(() -> Input.user("user name", "a\tb")).startsWith("user name: a control character (U+0009)"));
        assertTrue(refused(() -> Input.user("user name", "u".repeat(65))).startsWith("user name: at most 64"));
        assertTrue(refused(() -> Users.checkName("ver a")).startsWith("$.name: 'ver a' is not a user name"));
        assertTrue(refused(() -> Role.of("boss\u2066")).startsWith("$.role: 'boss?' is not"));
    }

    @Test
    void planNames() {
        assertEquals("quick-2", Input.planName("$.name", "quick-2"));
        assertTrue(refused(() -> Input.planName("$.name", "quick\u2067")).startsWith("$.name: a bidirectional override"));
        assertTrue(refused(() -> Input.planName("$.name", "quick\n")).startsWith("$.name: a control character (U+000A)"));
        assertTrue(refused(() -> Input.planName("$.name", "p".repeat(101))).startsWith("$.name: at most 100"));
        assertTrue(refused(() -> Input.planName("plan name", "../evil")).startsWith("plan name: '../evil' is not a plan"));
        assertTrue(refused(() -> Input.planName("plan name", ".hidden")).contains("not starting with '.'"));
    }
}
