package rtbox.mqtt.protocol;

import java.util.List;

/**
 * What a plan's result adds to a result: the plan, its {@code state} (complete, stopped,
 * interrupted; null when it failed before its cells were journaled), the cells planned and
 * run ({@code cellsRun} null likewise) and a line per cell that ran.
 */
public record PlanOutcome(String plan, String state, int cellsPlanned, Integer cellsRun, List<CellLine> cells,
        String description) {
}
