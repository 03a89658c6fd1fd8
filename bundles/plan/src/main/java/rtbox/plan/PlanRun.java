package rtbox.plan;

import java.util.List;

import rtbox.api.result.Verdict;

/**
 * A plan run: the plan's name and file, its cells in the order they ran, and the
 * overall verdict. {@code cellsPlanned} counts the cells the plan expands to;
 * {@code state} is {@code complete}, {@code stopped} (asked to stop: the cells
 * not run are missing) or {@code interrupted} (read back from the journal of a run
 * that never finished: killed or a power cut). {@code planText} is the plan file
 * as it was run, so a report says exactly what was asked.
 */
public record PlanRun(
        int schema,
        String id,
        String plan,
        String description,
        String file,
        String planText,
        long startedEpochMs,
        long endedEpochMs,
        int cellsPlanned,
        List<String> cellNames,
        String state,
        List<CellResult> cells,
        Verdict verdict) {
    /** Version of this record's JSON shape; a change that breaks readers raises it. */
    public static final int SCHEMA = 1;

    public static final String COMPLETE = "complete", STOPPED = "stopped", INTERRUPTED = "interrupted";

    /** True when some cell ran on a matrix (it has axes): the report then has the comparison table. */
    public boolean matrix() {
        return cells.stream().anyMatch(c -> !c.axes().isEmpty());
    }
}
