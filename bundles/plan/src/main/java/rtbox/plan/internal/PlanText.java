package rtbox.plan.internal;

import java.util.List;

import rtbox.api.RunParameters;
import rtbox.core.Thresholds;

/**
 * A plan's text read as {@code rtbox plan check} reads it: its problems, or its first
 * cell's run. Public only for RunSchemaTest (runtime), which checks every front end
 * against one table of values; the package stays private to the bundle.
 */
public final class PlanText {
    private PlanText() {
    }

    /** Every problem of the plan, each with its JSON path; empty when it can run. */
    public static List<String> problems(String text) {
        return PlanParser.parse(text).problems();
    }

    /** The first cell's run parameters; the plan must have no problem. */
    public static RunParameters firstParameters(String text) {
        return PlanParser.parse(text).cells().get(0).parameters();
    }

    /** The first cell's thresholds; the plan must have no problem. */
    public static Thresholds firstThresholds(String text) {
        return PlanParser.parse(text).cells().get(0).thresholds();
    }
}
