package rtbox.api.result;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Verdict.Outcome;

/** The one verdict-to-exit-code mapping every command uses (README: 0 PASS, 1 FAIL, 2 error, 3 INCONCLUSIVE). */
class ExitCodeTest {
    @Test
    void eachOutcomeHasItsCode() {
        assertEquals(0, Outcome.PASS.exitCode());
        assertEquals(1, Outcome.FAIL.exitCode());
        assertEquals(2, Outcome.ERROR.exitCode());
        assertEquals(3, Outcome.INCONCLUSIVE.exitCode());
        assertEquals(3, new Verdict(Outcome.INCONCLUSIVE, List.of(), "a JVM pause").exitCode());
    }

    @Test
    void severalAreDecidedFailFirstThenErrorThenInconclusive() {
        assertEquals(Outcome.PASS, Outcome.worst(List.of()));
        assertEquals(Outcome.INCONCLUSIVE, Outcome.worst(List.of(Outcome.PASS, Outcome.INCONCLUSIVE)));
        assertEquals(Outcome.ERROR, Outcome.worst(List.of(Outcome.INCONCLUSIVE, Outcome.ERROR, Outcome.PASS)));
        assertEquals(Outcome.FAIL, Outcome.worst(List.of(Outcome.ERROR, Outcome.FAIL, Outcome.INCONCLUSIVE)));
    }
}
