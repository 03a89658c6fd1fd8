package rtbox.mqtt.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * The messages of a plan run and their sequence numbers. The numbers follow from the
 * cells alone: cell i (0-based) starts with progress 2i+1 and ends with its result
 * 2i+2, and the plan's result is 2n+1 for n cells planned. So the same journal
 * gives the same numbers whether the messages are sent as the plan runs, after a
 * restart, or again on request ({@code results}): a receiver drops repeats by
 * (run, sequence) without the appliance keeping any record of what it sent. A plan
 * that stopped early or was cut short leaves the numbers of the cells it did not
 * run unused; its result names the cells that ran.
 */
final class PlanMessages {
    private PlanMessages() {
    }

    static long progressSeq(int cell) {
        return 2L * cell + 1;
    }

    static long cellSeq(int cell) {
        return 2L * cell + 2;
    }

    static long resultSeq(int cellsPlanned) {
        return 2L * cellsPlanned + 1;
    }

    /** Cell {@code index} (0-based) of {@code count} starts. */
    static JsonObject progress(String appliance, String run, String plan, int index, int count, String cellName) {
        JsonObject o = Payloads.envelope("progress", appliance, run, progressSeq(index));
        o.addProperty("kind", "plan");
        o.addProperty("plan", plan);
        o.addProperty("cell", index + 1);
        o.addProperty("cells", count);
        o.addProperty("cell_name", cellName);
        o.addProperty("percent", Math.round(100.0 * index / Math.max(1, count)));
        return o;
    }

    /**
     * One cell's result, as the journal has it: the run's figures as a single run's
     * result has them (when the cell measured), with the cell's verdict (which can be
     * INCONCLUSIVE where the run's thresholds passed) and what the tuner changed.
     */
    static JsonObject cell(String appliance, String run, String plan, CellResult c, int count) {
        JsonObject o = c.report() != null ? Payloads.result(appliance, run, cellSeq(c.index()), c.report())
                : Payloads.failedResult(appliance, run, cellSeq(c.index()), c.probe(), "ERROR", c.error());
        o.addProperty("type", "cell");
        o.addProperty("kind", "plan");
        o.addProperty("plan", plan);
        o.addProperty("cell", c.index() + 1);
        o.addProperty("cells", count);
        o.addProperty("cell_name", c.name());
        o.addProperty("verdict", c.verdict().outcome().name());
        o.addProperty("reason", c.verdict().reason());
        o.addProperty("policy", c.policy());
        o.add("axes", Payloads.GSON.toJsonTree(c.axes()));
        o.add("loads", Payloads.GSON.toJsonTree(c.loads()));
        o.add("tuner", Payloads.GSON.toJsonTree(c.policyChanges()));
        if (c.report() == null) {
            o.addProperty("started", Instant.ofEpochMilli(c.startedEpochMs()).toString());
            o.addProperty("ended", Instant.ofEpochMilli(c.endedEpochMs()).toString());
        }
        return o;
    }

    /**
     * The plan's result: its overall verdict and a line per cell that ran. A run the
     * journal shows as interrupted (the appliance died during it) is ABORTED, with
     * what its journaled cells said in {@code reason}.
     */
    static JsonObject result(String appliance, PlanRun r) {
        JsonObject o = Payloads.envelope("result", appliance, r.id(), resultSeq(r.cellsPlanned()));
        o.addProperty("kind", "plan");
        o.addProperty("plan", r.plan());
        boolean aborted = PlanRun.INTERRUPTED.equals(r.state());
        o.addProperty("verdict", aborted ? "ABORTED" : r.verdict().outcome().name());
        o.addProperty("reason", aborted ? "the appliance restarted during the plan (crash or power loss) after "
                + r.cells().size() + " of " + r.cellsPlanned() + " cells; the journaled cells say: "
                + r.verdict().outcome() + ": " + r.verdict().reason() : r.verdict().reason());
        o.addProperty("state", r.state());
        o.addProperty("complete", PlanRun.COMPLETE.equals(r.state()));
        o.addProperty("started", Instant.ofEpochMilli(r.startedEpochMs()).toString());
        o.addProperty("ended", Instant.ofEpochMilli(r.endedEpochMs()).toString());
        o.addProperty("cells_planned", r.cellsPlanned());
        o.addProperty("cells_run", r.cells().size());
        JsonArray cells = new JsonArray();
        for (CellResult c : r.cells()) {
            JsonObject x = new JsonObject();
            x.addProperty("cell", c.index() + 1);
            x.addProperty("name", c.name());
            x.addProperty("sequence", cellSeq(c.index()));
            x.addProperty("verdict", c.verdict().outcome().name());
            x.addProperty("max_us", c.worstUs());
            x.addProperty("missed_deadlines", c.missedDeadlines());
            x.addProperty("overflows", c.overflows());
            cells.add(x);
        }
        o.add("cells", cells);
        if (r.description() != null) {
            o.addProperty("description", r.description());
        }
        return o;
    }

    /** A plan that failed after it started, before its cells were journaled (e.g. the journal is unwritable). */
    static JsonObject failed(String appliance, String run, String plan, int cellsPlanned, String reason) {
        JsonObject o = Payloads.envelope("result", appliance, run, resultSeq(cellsPlanned));
        o.addProperty("kind", "plan");
        o.addProperty("plan", plan);
        o.addProperty("verdict", "ERROR");
        o.addProperty("reason", reason);
        o.addProperty("complete", false);
        o.addProperty("cells_planned", cellsPlanned);
        return o;
    }

    /** Every message of a journaled run, in order, with its topic: what {@code results} re-publishes. */
    static List<String[]> replay(String appliance, PlanRun r) {
        List<String[]> out = new ArrayList<>();
        for (CellResult c : r.cells()) {
            out.add(new String[] {Topics.cell(appliance, r.id()),
                    Payloads.GSON.toJson(cell(appliance, r.id(), r.plan(), c, r.cellsPlanned()))});
        }
        out.add(new String[] {Topics.result(appliance, r.id()), Payloads.GSON.toJson(result(appliance, r))});
        return out;
    }

    /** One line of the {@code results} listing. */
    static JsonObject summary(PlanRun r) {
        JsonObject o = new JsonObject();
        o.addProperty("run", r.id());
        o.addProperty("plan", r.plan());
        o.addProperty("state", r.state());
        o.addProperty("verdict", PlanRun.INTERRUPTED.equals(r.state()) ? "ABORTED" : r.verdict().outcome().name());
        o.addProperty("started", Instant.ofEpochMilli(r.startedEpochMs()).toString());
        o.addProperty("ended", Instant.ofEpochMilli(r.endedEpochMs()).toString());
        o.addProperty("cells_planned", r.cellsPlanned());
        o.addProperty("cells_run", r.cells().size());
        return o;
    }
}
