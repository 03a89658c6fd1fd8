package rtbox.plan.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/** Verdicts of a cell (from its run's checks) and of a whole plan run. */
final class Verdicts {
    /** The cause the runner gives a spike that overlapped a JVM pause. */
    static final String JVM = "JVM pause";

    private Verdicts() {
    }

    /**
     * The run's verdict, except: when the worst wake-up of the run was a JVM pause the
     * cell is INCONCLUSIVE whether its thresholds passed or failed, since that
     * sample measured the JVM, not the machine under test.
     */
    static Verdict cell(RunReport r) {
        Verdict v = r.verdict();
        if (v.outcome() != Outcome.PASS && v.outcome() != Outcome.FAIL) {
            return v;
        }
        long max = 0;
        Spike worst = null;
        for (ThreadResult t : r.result().threads()) {
            max = Math.max(max, t.latency().maxNs());
            for (Spike s : t.spikes()) {
                if (worst == null || s.latencyNs() > worst.latencyNs()) {
                    worst = s;
                }
            }
        }
        if (worst != null && worst.latencyNs() >= max && JVM.equals(worst.cause())) {
            return new Verdict(Outcome.INCONCLUSIVE, v.checks(), String.format(Locale.ROOT,
                    "the worst wake-up (%d us at %.3f s) was a JVM pause (%s), not the machine under test, so this "
                            + "cell proves nothing either way; rerun it (the thresholds alone said %s: %s)",
                    Math.round(worst.latencyNs() / 1000.0), worst.offsetNs() / 1e9, worst.detail(), v.outcome(),
                    v.reason()));
        }
        return v;
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
