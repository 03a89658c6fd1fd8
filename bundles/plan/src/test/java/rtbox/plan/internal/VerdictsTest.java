package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/** A plan is a PASS only when every cell was judged against a latency threshold and passed. */
class VerdictsTest {
    private static CellResult cell(String name, Outcome o) {
        return new CellResult(0, name, Map.of(), "timer", "", List.of(), Map.of(), 0, 1, null,
                new Verdict(o, List.of(), o == Outcome.MEASURED ? "no thresholds given" : "all thresholds met"), null);
    }

    private static List<CellResult> cells(Outcome... os) {
        List<CellResult> out = new ArrayList<>();
        for (int i = 0; i < os.length; i++) {
            out.add(cell("c" + i, os[i]));
        }
        return out;
    }

    @Test
    void aPlanWithoutThresholdsIsMeasured() {
        Verdict v = Verdicts.overall(cells(Outcome.MEASURED, Outcome.MEASURED), 2, PlanRun.COMPLETE);
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("no thresholds given", v.reason());
        assertEquals(0, v.exitCode());
    }

    @Test
    void aPlanWithSomeCellsUnjudgedIsMeasuredAndNamesThem() {
        Verdict v = Verdicts.overall(cells(Outcome.PASS, Outcome.MEASURED), 2, PlanRun.COMPLETE);
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("1 of 2 cells without latency thresholds (measured, not judged): c1; the other 1 passed",
                v.reason());
    }

    @Test
    void aFailureStillWinsOverMeasured() {
        assertEquals(Outcome.FAIL, Verdicts.overall(cells(Outcome.MEASURED, Outcome.FAIL), 2, PlanRun.COMPLETE)
                .outcome());
        assertEquals(Outcome.PASS, Verdicts.overall(cells(Outcome.PASS, Outcome.PASS), 2, PlanRun.COMPLETE)
                .outcome());
    }
}
