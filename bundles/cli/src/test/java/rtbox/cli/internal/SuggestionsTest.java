package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class SuggestionsTest {
    private static final List<String> COMMANDS = List.of("run", "probes", "load", "selftest", "serve", "plan",
            "results", "ctl", "job", "help");

    @Test
    void aSwapOrAMissingLetterFindsTheCommand() {
        assertEquals(List.of("run"), Suggestions.close("rnu", COMMANDS));
        assertEquals(List.of("probes"), Suggestions.close("probs", COMMANDS));
        assertEquals(List.of("results"), Suggestions.close("resutls", COMMANDS));
    }

    @Test
    void somethingElseEntirelyFindsNothing() {
        assertTrue(Suggestions.close("frobnicate", COMMANDS).isEmpty());
    }
}
