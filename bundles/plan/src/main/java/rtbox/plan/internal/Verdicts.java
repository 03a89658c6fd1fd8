package rtbox.plan.internal;

import java.util.ArrayList;
import java.util.List;

import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * The verdict of a whole plan run from its cells'. A cell's verdict is its run's, decided once
 * by rtbox.core (VerdictRule: a failure whose worst sample was a JVM pause is INCONCLUSIVE, a
 * pass stays a pass); a plan does not decide a run's verdict again.
 */
final class Verdicts {
    private Verdicts() {
    }

    /**
     * Overall: FAIL if any cell failed (a failure is evidence even in a partial run);
     * else ERROR if a cell could not run; else INCONCLUSIVE if a cell was, or if cells
     * are missing (stopped, interrupted); else MEASURED if any cell had no latency
     * threshold (a plan is a PASS only when every cell was judged and passed); else PASS.
     */
    static Verdict overall(List<CellResult> cells, int planned, String state) {
        List<String> failed = names(cells, Outcome.FAIL), errors = names(cells, Outcome.ERROR),
                inconclusive = names(cells, Outcome.INCONCLUSIVE);
        if (!failed.isEmpty()) {
            return new Verdict(Outcome.FAIL, List.of(), count(failed, cells) + " failed: " + String.join(", ", failed));
        }
        if (!errors.isEmpty()) {
            return new Verdict(Outcome.ERROR, List.of(), count(errors, cells) + " could not run: "
                    + String.join(", ", errors));
        }
        if (!inconclusive.isEmpty()) {
            return new Verdict(Outcome.INCONCLUSIVE, List.of(), count(inconclusive, cells) + " inconclusive ("
                    + "the JVM, not the machine, was the worst, or a cell was cut short): "
                    + String.join(", ", inconclusive));
        }
        if (cells.size() < planned) {
            return new Verdict(Outcome.INCONCLUSIVE, List.of(), "only " + cells.size() + " of " + planned + " cells ran ("
                    + (PlanRun.INTERRUPTED.equals(state) ? "the run was killed or the power cut" : "stopped")
                    + "); none of those failed");
        }
        List<String> measured = names(cells, Outcome.MEASURED);
        if (!cells.isEmpty() && measured.size() == cells.size()) {
            return new Verdict(Outcome.MEASURED, List.of(), "no thresholds given");
        }
        if (!measured.isEmpty()) {
            return new Verdict(Outcome.MEASURED, List.of(), count(measured, cells) + " without latency thresholds"
                    + " (measured, not judged): " + String.join(", ", measured) + "; the other "
                    + (cells.size() - measured.size()) + " passed");
        }
        return new Verdict(Outcome.PASS, List.of(), "all " + planned + (planned == 1 ? " cell" : " cells") + " passed");
    }

    private static String count(List<String> some, List<CellResult> all) {
        return some.size() + " of " + all.size() + (all.size() == 1 ? " cell" : " cells");
    }

    private static List<String> names(List<CellResult> cells, Outcome o) {
        List<String> out = new ArrayList<>();
        for (CellResult c : cells) {
            if (c.verdict().outcome() == o) {
                out.add(c.name());
            }
        }
        return out;
    }
}
