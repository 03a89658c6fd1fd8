package rtbox.mqtt.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.CellLine;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.PlanCell;
import rtbox.mqtt.protocol.PlanOutcome;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.Topics;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

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
    static Progress progress(String appliance, String run, String plan, int index, int count, String cellName) {
        return new Progress(appliance, Instant.now(), run, progressSeq(index), null,
                Math.round(100.0 * index / Math.max(1, count)), new PlanCell(plan, index + 1, count, cellName));
    }

    /**
     * One cell's result as its payload, as the journal has it: the run's figures as a single run's
     * result has them (when the cell measured), with the cell's verdict (which can be
     * INCONCLUSIVE where the run's thresholds passed) and what the tuner changed.
     */
    static byte[] cell(String appliance, String run, String plan, CellResult c, int count) {
        boolean measured = c.report() != null;
        Cell cell = new Cell(appliance, Instant.now(), run, cellSeq(c.index()), new PlanCell(plan, c.index() + 1,
                count, c.name()), measured ? c.report().result().probe() : c.probe(),
                outcome(c.verdict().outcome().name()), c.verdict().reason(), measured && c.report().result().complete(),
                Instant.ofEpochMilli(measured ? c.report().startedEpochMs() : c.startedEpochMs()),
                Instant.ofEpochMilli(measured ? c.report().endedEpochMs() : c.endedEpochMs()),
                measured ? Payloads.figures(c.report()) : null, null, c.policy(), c.axes(), c.loads(),
                c.policyChanges());
        return measured ? Codec.encode(cell, Payloads.reportWriter(c.report())) : Codec.encode(cell);
    }

    private static Outcome outcome(String name) {
        return Outcome.valueOf(name);
    }

    /**
     * The plan's result: its overall verdict and a line per cell that ran. A run the
     * journal shows as interrupted (the appliance died during it) is ABORTED, with
     * what its journaled cells said in {@code reason}.
     */
    static Result result(String appliance, PlanRun r) {
        boolean aborted = PlanRun.INTERRUPTED.equals(r.state());
        List<CellLine> cells = new ArrayList<>();
        for (CellResult c : r.cells()) {
            cells.add(new CellLine(c.index() + 1, c.name(), cellSeq(c.index()), outcome(c.verdict().outcome().name()),
                    c.worstUs(), c.missedDeadlines(), c.overflows()));
        }
        return new Result(appliance, Instant.now(), r.id(), resultSeq(r.cellsPlanned()), null,
                aborted ? Outcome.ABORTED : outcome(r.verdict().outcome().name()),
                aborted ? "the appliance restarted during the plan (crash or power loss) after " + r.cells().size()
                        + " of " + r.cellsPlanned() + " cells; the journaled cells say: " + r.verdict().outcome() + ": "
                        + r.verdict().reason() : r.verdict().reason(),
                PlanRun.COMPLETE.equals(r.state()), Instant.ofEpochMilli(r.startedEpochMs()),
                Instant.ofEpochMilli(r.endedEpochMs()), null, null,
                new PlanOutcome(r.plan(), r.state(), r.cellsPlanned(), r.cells().size(), List.copyOf(cells),
                        r.description()));
    }

    /**
     * A plan that failed after it started, before its cells were journaled (e.g. the
     * journal is unwritable: ERROR), or that a restart cut short with no journal record
     * of it (ABORTED).
     */
    static Result failed(String appliance, String run, long sequence, String plan, int cellsPlanned, Outcome verdict,
            String reason) {
        return new Result(appliance, Instant.now(), run, sequence, null, verdict, reason, false, null, null, null,
                null, new PlanOutcome(plan, null, cellsPlanned, null, null, null));
    }

    /**
     * Every message of a journaled run, in order, encoded one at a time as {@code to} takes
     * them: what {@code results} re-publishes ({@code replayed} of them). One at a time, since
     * a cell's report is 50-90 kB of payload (and was megabytes as a tree).
     */
    static void replay(String appliance, PlanRun r, BiConsumer<String, byte[]> to) {
        for (CellResult c : r.cells()) {
            to.accept(Topics.cell(appliance, r.id()), cell(appliance, r.id(), r.plan(), c, r.cellsPlanned()));
        }
        to.accept(Topics.result(appliance, r.id()), Codec.encode(result(appliance, r)));
    }

    /** How many messages {@link #replay} gives. */
    static int replayed(PlanRun r) {
        return r.cells().size() + 1;
    }

    /** One line of the {@code results} listing. */
    static JsonObject summary(PlanRun r) {
        return summary(Plans.Summary.of(r));
    }

    static JsonObject summary(Plans.Summary r) {
        JsonObject o = new JsonObject();
        o.addProperty("run", r.id());
        o.addProperty("plan", r.plan());
        o.addProperty("state", r.state());
        o.addProperty("verdict", PlanRun.INTERRUPTED.equals(r.state()) ? "ABORTED" : r.verdict().outcome().name());
        o.addProperty("started", Instant.ofEpochMilli(r.startedEpochMs()).toString());
        o.addProperty("ended", Instant.ofEpochMilli(r.endedEpochMs()).toString());
        o.addProperty("cells_planned", r.cellsPlanned());
        o.addProperty("cells_run", r.cellsRun());
        return o;
    }
}
