package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.Topics;
import rtbox.plan.CellResult;
import rtbox.plan.PlanBusyException;
import rtbox.plan.PlanException;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/**
 * Over 400 lines: the plan verb's whole life (run, per-cell messages, progress, recovery of
 * an interrupted plan after a restart, results rebuilt from the journal) shares the sequence
 * numbering of {@link PlanMessages}; recovery and results are kept beside the run so that
 * the three cannot number a message differently.
 *
 * <p>The {@code plan} and {@code results} verbs, through the rtbox.plan service: without that
 * bundle this component is not satisfied and the appliance answers every other verb.
 * A plan's messages have sequence numbers fixed by its cells ({@link PlanMessages}), so a
 * restart and {@code results} rebuild them from the journal alone.
 */
@Component(service = Verbs.class)
public class PlanVerbs implements Verbs {

    @Reference
    Plans plans;

    @Override
    public Set<String> verbs() {
        return Set.of("plan", "results");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        return "plan".equals(verb) ? plan(c, requestId, station) : results(c, station);
    }

    /**
     * Checks the plan here (400 with the plan's own paths), then runs it on the run
     * thread and answers with the run id once the plan's start is in the journal. Its
     * messages follow the reply: the run thread waits for it.
     */
    /** A cell's messages and journal record, estimated high (a result with its report is some 10 to 60 kB). */
    static final long CELL_BYTES = 2 * 64 * 1024;

    private Reply plan(JsonObject c, String requestId, Station station) throws RtboxException {
        String refused = station.refuseNew("plan");
        if (refused != null) {
            return Reply.conflict(refused);
        }
        Path plansDir = station.plansDir();
        boolean inline = c.has("plan") && !c.get("plan").isJsonNull();
        String name = RunJson.string(c, "name", null);
        if (inline == (name != null)) {
            return Reply.bad("give the plan either inline (\"plan\": {the plan, as in plans/README.md}) or by name"
                    + " (\"name\": \"quick\", a file in " + plansDir + "), not " + (inline ? "both" : "neither"));
        }
        // The plan's text, read once: Plans checks and runs it as text, and the journal keeps it.
        String origin;
        String text;
        String label;
        if (inline) {
            if (!c.get("plan").isJsonObject()) {
                return Reply.bad("plan must be the plan itself, a JSON object (plans/README.md), not "
                        + shorten(c.get("plan").toString()));
            }
            text = Payloads.GSON.toJson(c.get("plan"));
            // One word, as a file name would be: reports put the user's own file in its place.
            origin = "mqtt:" + requestId;
            label = "the plan";
        } else {
            String n = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
            String bad = Topics.checkId("name", n);
            if (bad != null) {
                return Reply.bad(bad + " (the name of a plan file in " + plansDir + ", with or without .json)");
            }
            Path file = plansDir.resolve(n + ".json");
            if (!Files.isRegularFile(file)) {
                return Reply.notFound("no plan '" + n + "' in " + plansDir + ": there are " + planNames(plansDir));
            }
            try {
                long size = Files.size(file);
                int limit = station.config().maxCommandBytes();
                if (size > limit) {
                    // No larger than a plan sent inline may be: a 50 MB file would fill the heap.
                    return Reply.tooLarge("plan '" + n + "' (" + file + ") is " + size + " bytes; a plan is at most "
                            + limit + " (maxCommandBytes of rtbox.mqtt): not read");
                }
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return Reply.failed("cannot read " + file + ": " + e.getMessage());
            }
            origin = file.toAbsolutePath().toString();
            label = "plan '" + n + "'";
        }
        String planName;
        int cells;
        try {
            cells = plans.check(origin, text).size();
            planName = rtbox.json.StrictJson.object(text).str("name"); // checked whole by the plan service above
        } catch (rtbox.json.JsonProblem e) {
            return Reply.bad(label + ": " + e.getMessage());
        } catch (PlanException e) {
            JsonObject body = new JsonObject();
            body.add("problems", Payloads.GSON.toJsonTree(e.problems()));
            return new Reply(400, label + " has " + e.problems().size() + (e.problems().size() == 1 ? " problem"
                    : " problems") + "; nothing was run: " + String.join("; ", e.problems()), body);
        } catch (RuntimeException e) {
            return Reply.failed("cannot read the name of " + label + ": " + e);
        }
        // Each cell: its start and its result over MQTT, and its record in the result journal.
        String noRoom = station.noRoomFor("plan (" + cells + " cells)", cells * CELL_BYTES);
        if (noRoom != null) {
            return Reply.insufficientStorage(noRoom);
        }
        CompletableFuture<RunSession> started = new CompletableFuture<>();
        CountDownLatch replied = new CountDownLatch(1);
        // Keeps a second run or plan out while this one starts; the journal gives it its run id.
        RunSession starting = new RunSession(null, planName, RunSession.PLAN, station.activeFile());
        String busy = station.activity().claim(starting, plans::stop, () -> progressTick(station));
        if (busy != null) {
            return Reply.conflict(busy);
        }
        Plans.Listener listener = new Listener(station, plans, planName, started, replied);
        station.runs().execute(() -> runPlan(station, origin, text, planName, listener, started));
        RunSession session;
        try {
            session = started.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable t = e.getCause();
            String msg = t instanceof RtboxException ? t.getMessage() : String.valueOf(t);
            // A second plan (one started on the appliance itself, say) is refused with its own type.
            return t instanceof PlanBusyException ? Reply.conflict(msg)
                    : t instanceof PlanException ? Reply.bad(msg) : Reply.failed("the plan did not start: " + msg);
        } catch (TimeoutException e) {
            replied.countDown();
            return Reply.failed("the plan did not start within 60 s; see the appliance's log");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            replied.countDown();
            return Reply.failed("interrupted while the plan started");
        }
        station.afterReply(replied::countDown);
        String appliance = station.appliance();
        JsonObject body = new JsonObject();
        body.addProperty("run", session.id);
        body.addProperty("plan", planName);
        body.addProperty("cells", session.cells);
        body.addProperty("progress", Topics.progress(appliance, session.id));
        body.addProperty("cell", Topics.cell(appliance, session.id));
        body.addProperty("result", Topics.result(appliance, session.id));
        body.addProperty("result_sequence", PlanMessages.resultSeq(session.cells));
        return Reply.ok("plan " + planName + " started as run " + session.id + ": " + session.cells
                + (session.cells == 1 ? " cell" : " cells"), body);
    }

    /** Sends a plan's messages as the plan service reports its steps (on the run thread). */
    private static final class Listener implements Plans.Listener {
        private final Station station;
        private final Plans plans;
        private final String planName;
        private final CompletableFuture<RunSession> started;
        private final CountDownLatch replied;
        private RunSession session;

        Listener(Station station, Plans plans, String planName, CompletableFuture<RunSession> started,
                CountDownLatch replied) {
            this.station = station;
            this.plans = plans;
            this.planName = planName;
            this.started = started;
            this.replied = replied;
        }

        @Override
        public void planStarted(String runId, List<String> cellNames) {
            // Kept in the (bounded) journal until its result is queued: a restart before then rebuilds it from there.
            plans.hold(runId, true);
            RunSession n = new RunSession(runId, planName, RunSession.PLAN, station.activeFile());
            n.cells = cellNames.size();
            try {
                n.persist();
            } catch (IOException e) {
                Appliance.LOG.warn("cannot record plan run {}: {}; a restart during it would not report it", runId,
                        e.getMessage());
            }
            session = n;
            station.activity().replace(n);
            started.complete(n);
            try {
                // The reply (with the run id) goes first, so that a reader knows the run when its messages come.
                replied.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void cellStarted(int index, int count, String cellName) {
            session.cellStarted(index, cellName);
            String appliance = station.appliance();
            station.queueAt(session, Topics.progress(appliance, session.id), PlanMessages.progressSeq(index),
                    PlanMessages.progress(appliance, session.id, planName, index, count, cellName));
            station.statusChanged();
        }

        @Override
        public void progress(int index, int count, double fraction) {
            session.fraction = fraction;
        }

        @Override
        public void measuring(int index, rtbox.api.LiveThread thread) {
            session.measuring(thread);
        }

        @Override
        public void cellFinished(CellResult cell, int count) {
            String appliance = station.appliance();
            station.queueAt(session, Topics.cell(appliance, session.id), PlanMessages.cellSeq(cell.index()),
                    PlanMessages.cell(appliance, session.id, planName, cell, count));
        }
    }

    /** The run thread: the plan, then its result; the cells' messages go from the listener. */
    private void runPlan(Station station, String origin, String text, String planName, Plans.Listener listener,
            CompletableFuture<RunSession> started) {
        PlanRun result = null;
        String error = null;
        try {
            result = plans.run(origin, text, listener);
        } catch (RtboxException e) {
            error = e.getMessage();
            started.completeExceptionally(e);
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            // An Error too: a plan without its result left the appliance busy for good.
            error = "the plan failed on the appliance: " + e;
            started.completeExceptionally(e);
        }
        RunSession s = started.isCompletedExceptionally() ? null : started.getNow(null);
        if (s != null) {
            String appliance = station.appliance();
            if (result != null) {
                station.queueAt(s, Topics.result(appliance, s.id), PlanMessages.resultSeq(result.cellsPlanned()),
                        PlanMessages.result(appliance, result));
            } else {
                station.queueAt(s, Topics.result(appliance, s.id), PlanMessages.resultSeq(s.cells),
                        PlanMessages.failed(appliance, s.id, PlanMessages.resultSeq(s.cells), planName, s.cells,
                                Outcome.ERROR, error));
            }
            s.finished();
            plans.hold(s.id, false);
        }
        station.activity().clear();
        station.statusChanged();
    }

    /**
     * A plan's numbered messages are one per cell (PlanMessages); within a cell the
     * retained status shows how far it is.
     */
    private static void progressTick(Station station) {
        RunSession s = station.activity().current();
        if (s == null || s.id == null) {
            return;
        }
        int step = s.cell * 10 + (int) Math.floor(s.fraction * 10);
        if (step > s.lastStep) {
            s.lastStep = step;
            station.statusChanged();
        }
    }

    /**
     * A plan that a crash or power loss cut short: its cells that reached the journal but
     * not the outbox are queued, then its result (ABORTED, unless the journal shows the
     * plan ended), all with the numbers they would have had.
     */
    @Override
    public void recover(Station station) {
        try {
            // Damage in the journal is told at start (log and status), not only by `results`.
            List<String> damaged = plans.damaged();
            if (!damaged.isEmpty()) {
                Appliance.LOG.warn("result journal: {} damaged records skipped, carried by the status: {}",
                        damaged.size(), Dispatcher.cut(String.join("; ", damaged), 2000));
            }
            station.damaged("journal", damaged);
        } catch (RtboxException e) {
            Appliance.LOG.warn("cannot read the result journal: {}", e.getMessage());
        }
        RunSession r = station.interrupted(RunSession.PLAN);
        if (r == null) {
            return;
        }
        String appliance = station.appliance();
        long last = r.sequence();
        PlanRun run = null;
        try {
            run = plans.run(r.id);
        } catch (RtboxException e) {
            Appliance.LOG.warn("cannot read the result journal: {}", e.getMessage());
        }
        if (run == null) {
            Appliance.LOG.info("plan run {} was interrupted by a restart and is not in the journal: reporting it as "
                    + "aborted",
                    r.id);
            station.queueAt(r, Topics.result(appliance, r.id), last + 1, PlanMessages.failed(appliance, r.id, last + 1,
                    r.probe, r.cells, Outcome.ABORTED, "the appliance restarted during the plan (crash or power loss)"
                            + " and its journal has no record of it"));
        } else {
            Appliance.LOG.warn("plan run {} ({}) was interrupted by a restart after {} of {} cells: delivering what "
                    + "the journal has",
                    r.id, run.plan(), run.cells().size(), run.cellsPlanned());
            for (CellResult c : run.cells()) {
                if (PlanMessages.cellSeq(c.index()) > last) {
                    station.queueAt(r, Topics.cell(appliance, r.id), PlanMessages.cellSeq(c.index()),
                            PlanMessages.cell(appliance, r.id, run.plan(), c, run.cellsPlanned()));
                }
            }
            if (PlanMessages.resultSeq(run.cellsPlanned()) > last) {
                station.queueAt(r, Topics.result(appliance, r.id), PlanMessages.resultSeq(run.cellsPlanned()),
                        PlanMessages.result(appliance, run));
            }
        }
        r.finished();
    }

    /**
     * Without {@code run}: a page of the runs in the journal in brief (the last {@code limit},
     * 20 by default, at most 100; with {@code before}, those older than that run), so a reply
     * stays small whatever the journal holds; {@code older} in the reply asks for the page
     * before. With {@code run} (an id, or {@code last}): its cell results and its result are
     * published again after the reply, numbered as they were first, so a reader that has them
     * drops them by (run, sequence).
     */
    private Reply results(JsonObject c, Station station) throws RtboxException {
        RunSession s = station.activity().current();
        String running = s == null ? null : s.id;
        String want = RunJson.string(c, "run", null);
        if (want == null) {
            // Exactly: "limit": 2.5 was a page of 2.
            int limit = (int) RunJson.whole(c, "limit", 20, 1, 100);
            String before = RunJson.string(c, "before", null);
            if (before != null) {
                String bad = Topics.checkId("before", before);
                if (bad != null) {
                    return Reply.bad(bad);
                }
            }
            Plans.Page page = plans.page(before, limit);
            JsonArray list = new JsonArray();
            for (Plans.Summary r : page.runs()) {
                JsonObject o = PlanMessages.summary(r);
                if (r.id().equals(running)) {
                    o.addProperty("state", "running");
                    o.remove("verdict");
                }
                list.add(o);
            }
            JsonObject body = new JsonObject();
            body.add("runs", list);
            body.addProperty("total", page.total());
            if (page.older() != null) {
                body.addProperty("older", page.older());
            }
            body.addProperty("journal", page.journal());
            body.add("damaged", Payloads.GSON.toJsonTree(page.damaged()));
            String which = before == null ? "the newest " + list.size() : list.size() + " before run " + before;
            if (before != null && list.isEmpty()) {
                which = "no runs before run " + before + " (the oldest, or not in the journal)";
            }
            return Reply.ok(which + " of " + page.total() + " runs in the journal, oldest first"
                    + (page.older() == null ? "" : "; older ones with before " + page.older())
                    + (page.damaged().isEmpty() ? "" : "; damaged records skipped"), body);
        }
        PlanRun run = null;
        if ("last".equals(want)) {
            List<Plans.Summary> newest = plans.page(null, 2).runs();
            for (Plans.Summary r : newest) {
                if (!r.id().equals(running)) {
                    run = plans.run(r.id());
                }
            }
        } else {
            String bad = Topics.checkId("run", want);
            if (bad != null) {
                return Reply.bad(bad);
            }
            run = plans.run(want);
        }
        if (run == null) {
            Plans.Page all = plans.page(null, 0);
            return Reply.notFound("no run '" + want + "' in the journal " + all.journal() + " ("
                    + all.total() + " runs; list them with results and no run)");
        }
        if (run.id().equals(running)) {
            return Reply.conflict("run " + run.id() + " is under way: its results come as its cells end");
        }
        PlanRun replayed = run;
        station.afterReply(() -> PlanMessages.replay(station.appliance(), replayed, station::queue));
        JsonObject body = PlanMessages.summary(run);
        body.addProperty("messages", PlanMessages.replayed(run));
        body.addProperty("cell", Topics.cell(station.appliance(), run.id()));
        body.addProperty("result", Topics.result(station.appliance(), run.id()));
        body.addProperty("result_sequence", PlanMessages.resultSeq(run.cellsPlanned()));
        return Reply.ok("publishing run " + run.id() + " again: " + run.cells().size() + " cell results and the"
                + " plan's result, numbered as when first sent (drop repeats by run and sequence)", body);
    }

    private static String planNames(Path plansDir) {
        TreeSet<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(plansDir)) {
            files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".json"))
                    .forEach(f -> names.add(f.substring(0, f.length() - 5)));
        } catch (IOException e) {
            return "none (" + plansDir + " cannot be read: " + e.getMessage() + ")";
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
