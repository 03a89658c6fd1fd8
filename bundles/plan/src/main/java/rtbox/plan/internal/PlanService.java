package rtbox.plan.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;

import rtbox.os.AppendLog;
import rtbox.api.Policy;
import rtbox.api.PolicyHandle;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.RunReport;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.core.LoadSpec;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.plan.CellResult;
import rtbox.plan.PlanBusyException;
import rtbox.plan.PlanException;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/**
 * Just over 400 lines: checking cells against what is installed, running them one at a time
 * with the tuner, and journaling each; the journal's format is rtbox.os.AppendLog's.
 *
 * <p>Checks and runs plans through the core runner, one cell at a time, with the
 * scheduling tuner (rtbox.policy=sched) around each cell, and keeps the journal.
 */
@Component(service = Plans.class, configurationPid = "rtbox.plan", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = PlanConfig.class)
public class PlanService implements Plans {
    static final String TUNER = "sched";
    /** The journal's records: no NaN or infinity written (JSON has none), such a figure is null (ModelJson). */
    static final Gson LINE = rtbox.json.ModelJson.builder().serializeNulls().create();

    @Reference
    Runner runner;

    private final Map<String, Policy> policies = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean stopRequested;
    private volatile AppendLog journal = new AppendLog(defaultJournal());
    private final JournalBound bound = new JournalBound();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addPolicy(Policy p, Map<String, Object> props) {
        Object n = props.get(Policy.NAME);
        if (n != null) {
            policies.put(n.toString(), p);
        }
    }

    void removePolicy(Policy p, Map<String, Object> props) {
        Object n = props.get(Policy.NAME);
        if (n != null) {
            policies.remove(n.toString(), p);
        }
    }

    @Activate
    @Modified
    void configure(PlanConfig config) {
        String j = config.journal();
        journal = new AppendLog(j == null || j.isBlank() ? defaultJournal() : Path.of(j));
        bound.maxBytes(config.journalMaxBytes());
    }

    /**
     * On shutdown (SIGTERM, Ctrl-C) stops the running plan and waits a little for it to
     * journal the cell that was cut short and its end record, so that the partial
     * result is not lost to the JVM's exit.
     */
    @Deactivate
    void deactivate() {
        stopAndWait();
    }

    private void stopAndWait() {
        stop();
        long end = System.nanoTime() + 5_000_000_000L;
        while (running.get() && System.nanoTime() < end) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static Path defaultJournal() {
        return Path.of(System.getProperty("rtbox.home", "."), "data", "results.journal");
    }

    void journal(Path file) {
        journal = new AppendLog(file);
    }

    JournalBound bound() {
        return bound;
    }

    // ---- check

    private record Loaded(String text, PlanParser.Parsed parsed) {
    }

    /**
     * The largest plan file read: a plan of 1000 cells (the most a plan may have) written out
     * cell by cell is about 200 kB, so this leaves room, and a 50 MB file is refused before it
     * fills the appliance's 48 MB heap (an OutOfMemoryError and exit 127 before).
     */
    static final long MAX_PLAN_BYTES = 4 * 1024 * 1024;

    private static String read(Path file) throws RtboxException {
        try {
            long size = Files.size(file);
            if (size > MAX_PLAN_BYTES) {
                throw new RtboxException("plan", "plan " + file + " is " + size + " bytes: a plan file is at most "
                        + MAX_PLAN_BYTES + " bytes (1000 cells fit in far less); not read");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new RtboxException("plan", "cannot read plan " + file + ": " + e.getMessage());
        }
    }

    private Loaded load(String origin, String text) throws RtboxException {
        PlanParser.Parsed p = PlanParser.parse(text);
        List<String> problems = new ArrayList<>(p.problems());
        if (problems.isEmpty()) {
            problems.addAll(checkCells(p.cells()));
        }
        if (!problems.isEmpty()) {
            throw new PlanException(origin, problems);
        }
        return new Loaded(text, p);
    }

    /** Each cell against what is installed; one message per problem, naming the cells it hits. */
    private List<String> checkCells(List<Cell> cells) {
        Map<String, List<Cell>> byProblem = new LinkedHashMap<>();
        for (Cell c : cells) {
            try {
                runner.check(request(c, c.parameters(), "check"));
            } catch (RtboxException e) {
                byProblem.computeIfAbsent(e.getMessage(), k -> new ArrayList<>()).add(c);
            }
            if (c.needsTuner() && !policies.containsKey(TUNER)) {
                byProblem.computeIfAbsent("policy '" + c.policy().text() + "'" + (c.tuning().isEmpty() ? "" : " and "
                        + "\"tuning\"") + " need the scheduling tuner (rtbox.policy.sched), which is not installed",
                        k -> new ArrayList<>()).add(c);
            }
        }
        List<String> out = new ArrayList<>();
        byProblem.forEach((problem, hit) -> {
            java.util.Set<String> sources = new java.util.LinkedHashSet<>();
            hit.forEach(c -> sources.add(c.source()));
            String which = hit.size() == 1 ? "cell '" + hit.get(0).name() + "'"
                    : hit.size() == cells.size() ? "every cell" : hit.size() + " cells ('" + hit.get(0).name() + "', ...)";
            out.add(String.join(", ", sources) + " (" + which + "): " + problem);
        });
        return out;
    }

    @Override
    public List<String> check(Path file) throws RtboxException {
        return check(file.toString(), read(file));
    }

    @Override
    public List<String> notes(Path file) throws RtboxException {
        return PlanParser.parse(read(file)).notes();
    }

    @Override
    public List<String> check(String origin, String text) throws RtboxException {
        List<String> names = new ArrayList<>();
        for (Cell c : load(origin, text).parsed().cells()) {
            names.add(c.name());
        }
        return names;
    }

    // ---- run

    @Override
    public void stop() {
        if (running.get()) {
            stopRequested = true;
            runner.stop();
        }
    }

    @Override
    public PlanRun run(Path file, Listener listener) throws RtboxException {
        return run(load(file.toString(), read(file)), file.toAbsolutePath().toString(), listener);
    }

    @Override
    public PlanRun run(String origin, String text, Listener listener) throws RtboxException {
        return run(load(origin, text), origin, listener);
    }

    private PlanRun run(Loaded plan, String origin, Listener listener) throws RtboxException {
        if (!running.compareAndSet(false, true)) {
            throw new PlanBusyException("a plan is already running: one measurement at a time");
        }
        stopRequested = false;
        Listener l = listener == null ? new Listener() { } : listener;
        // SIGTERM or Ctrl-C: stop, and hold the JVM's exit until the cut-short cell is journalled.
        Thread hook = new Thread(this::stopAndWait, "rtbox-plan-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            List<Cell> cells = plan.parsed().cells();
            String id = newId();
            long started = System.currentTimeMillis();
            List<String> names = new ArrayList<>();
            cells.forEach(c -> names.add(c.name()));
            JsonObject head = new JsonObject();
            head.addProperty("type", "plan");
            head.addProperty("schema", PlanRun.SCHEMA);
            head.addProperty("id", id);
            head.addProperty("plan", plan.parsed().name());
            head.addProperty("description", plan.parsed().description());
            head.addProperty("file", origin);
            head.addProperty("planText", plan.text());
            head.addProperty("started", started);
            head.addProperty("cellsPlanned", cells.size());
            head.add("cellNames", LINE.toJsonTree(names));
            bound.hold(id, true); // under way: never dropped by a compaction
            append(head);
            l.planStarted(id, List.copyOf(names));
            List<CellResult> results = new ArrayList<>();
            for (Cell c : cells) {
                if (stopRequested) {
                    break;
                }
                l.cellStarted(c.index(), cells.size(), c.name());
                CellResult r = runCell(c, cells.size(), origin, l);
                JsonObject rec = new JsonObject();
                rec.addProperty("type", "cell");
                rec.addProperty("id", id);
                rec.add("cell", LINE.toJsonTree(r));
                // Measured: kept until the disk has room for it (RoomWait), never lost to a full disk.
                RoomWait.append(journal, LINE.toJson(rec));
                results.add(r);
                l.cellFinished(r, cells.size());
            }
            // Stopped also when the stop cut the last cell short: every cell has a result, not every one ran to its end.
            String state = results.size() < cells.size() || stopRequested ? PlanRun.STOPPED : PlanRun.COMPLETE;
            Verdict overall = Verdicts.overall(results, cells.size(), state);
            long ended = System.currentTimeMillis();
            JsonObject end = new JsonObject();
            end.addProperty("type", "end");
            end.addProperty("id", id);
            end.addProperty("ended", ended);
            end.addProperty("state", state);
            end.add("verdict", LINE.toJsonTree(overall));
            RoomWait.append(journal, LINE.toJson(end));
            bound.hold(id, false);
            bound.compact(journal);
            return new PlanRun(PlanRun.SCHEMA, id, plan.parsed().name(), plan.parsed().description(),
                    origin, plan.text(), started, ended, cells.size(), names, state,
                    List.copyOf(results), overall);
        } finally {
            running.set(false);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running
            }
        }
    }

    private void append(JsonObject record) throws RtboxException {
        try {
            journal.append(LINE.toJson(record));
        } catch (IOException e) {
            throw new RtboxException("journal", "cannot append to the result journal " + journal.path() + ": "
                    + e.getMessage() + "; stopping, since a result not in the journal could be lost");
        }
    }

    private CellResult runCell(Cell c, int count, String file, Listener l) {
        long started = System.currentTimeMillis();
        Map<String, String> changes = new LinkedHashMap<>();
        List<String> loads = new ArrayList<>();
        c.loads().forEach(x -> loads.add(x.toString()));
        RunParameters params = c.parameters();
        PolicyHandle handle = null;
        CellContext context = new CellContext();
        try {
            Policy tuner = policies.get(TUNER);
            boolean useTuner = tuner != null && (c.needsTuner() || c.policy().policy() != SchedPolicy.OTHER);
            if (c.needsTuner() && tuner == null) {
                throw new RtboxException("policy", "the scheduling tuner (rtbox.policy.sched) is gone");
            }
            if (useTuner) {
                Map<String, String> settings = new LinkedHashMap<>(c.policy().tunerSettings());
                if (!settings.containsKey("priority") && c.policy().policy().isRealtime()) {
                    settings.put("priority", Integer.toString(params.priority));
                }
                settings.putAll(c.tuning());
                handle = tuner.apply(settings, context);
                changes.putAll(handle.changes());
                if (handle.effectivePolicy().isPresent()) {
                    rtbox.api.EffectivePolicy eff = handle.effectivePolicy().get();
                    params = params.toBuilder().policy(eff.policy()).priority(eff.priority()).build();
                }
            }
            RunReport report = runner.run(request(c, params, file), new Runner.ProgressListener() {
                @Override
                public void progress(double fraction) {
                    l.progress(c.index(), count, fraction);
                }

                @Override
                public void measuring(rtbox.api.LiveThread thread) {
                    l.measuring(c.index(), thread);
                }

                @Override
                public boolean stopRequested() {
                    return stopRequested;
                }
            });
            if (handle != null) {
                // Closed before the result is made: what the policy reports at close (emulated ISO's
                // demotions and promotions, its figures) goes into the cell's report.
                handle.close();
                handle.changes().forEach(changes::putIfAbsent);
                handle = null;
                report = PolicyEvents.merge(report, context.events(), changes);
            }
            return new CellResult(c.index(), c.name(), c.axes(), c.probe(), c.policy().text(), loads, changes, started,
                    System.currentTimeMillis(), report, report.verdict(), null);
        } catch (RtboxException | RuntimeException e) {
            String msg = e instanceof RtboxException ? e.getMessage() : e.toString();
            return new CellResult(c.index(), c.name(), c.axes(), c.probe(), c.policy().text(), loads, changes, started,
                    System.currentTimeMillis(), null, new Verdict(Outcome.ERROR, List.of(), msg), msg);
        } finally {
            if (handle != null) {
                handle.close();
                // What the policy only knows at the end (emulated ISO's demotions and shares) joins the
                // cell's changes: the result holds this map and is journalled after this returns.
                handle.changes().forEach(changes::putIfAbsent);
            }
        }
    }

    private static RunRequest request(Cell c, RunParameters params, String file) {
        List<LoadSpec> loads = c.loads();
        return new RunRequest(c.probe(), params, c.thresholds(), "rtbox plan run " + file + " # cell " + (c.index() + 1)
                + ": " + c.name(), loads, c.pwcet());
    }

    /** The context a cell's policy gets: the plan's stop, and the events it reports, kept for the cell's report. */
    private final class CellContext implements RunContext {
        private final List<PolicyEvents.Timed> events = new ArrayList<>();

        @Override
        public boolean stopRequested() {
            return stopRequested;
        }

        @Override
        public void progress(double fraction) {
        }

        @Override
        public void event(String kind, String detail) {
            event(System.nanoTime(), kind, detail);
        }

        @Override
        public synchronized void event(long nanoTime, String kind, String detail) {
            events.add(new PolicyEvents.Timed(nanoTime, kind, detail));
        }

        synchronized List<PolicyEvents.Timed> events() {
            return List.copyOf(events);
        }
    }

    private static String newId() {
        SimpleDateFormat f = new SimpleDateFormat("yyyyMMdd-HHmmss", Locale.ROOT);
        f.setTimeZone(TimeZone.getTimeZone("UTC"));
        return f.format(new Date()) + "-" + String.format(Locale.ROOT, "%04x", ThreadLocalRandom.current().nextInt(0x10000));
    }

    @Override
    public PlanRun record(RunReport report) throws RtboxException {
        String id = newId();
        String probe = report.result().probe();
        String policy = report.result().threads().isEmpty() ? "" : report.result().threads().get(0).policy() + ":"
                + report.result().threads().get(0).priority();
        CellResult cell = new CellResult(0, probe, Map.of(), probe, policy, new ArrayList<>(report.workloads().keySet()),
                Map.of(), report.startedEpochMs(), report.endedEpochMs(), report, report.verdict(), null);
        String name = "run " + probe;
        JsonObject head = new JsonObject();
        head.addProperty("type", "plan");
        head.addProperty("schema", PlanRun.SCHEMA);
        head.addProperty("id", id);
        head.addProperty("plan", name);
        head.addProperty("description", report.command());
        head.addProperty("started", report.startedEpochMs());
        head.addProperty("cellsPlanned", 1);
        head.add("cellNames", LINE.toJsonTree(List.of(probe)));
        append(head);
        JsonObject rec = new JsonObject();
        rec.addProperty("type", "cell");
        rec.addProperty("id", id);
        rec.add("cell", LINE.toJsonTree(cell));
        append(rec);
        JsonObject end = new JsonObject();
        end.addProperty("type", "end");
        end.addProperty("id", id);
        end.addProperty("ended", report.endedEpochMs());
        end.addProperty("state", PlanRun.COMPLETE);
        end.add("verdict", LINE.toJsonTree(report.verdict()));
        append(end);
        bound.compact(journal);
        return new PlanRun(PlanRun.SCHEMA, id, name, report.command(), null, null, report.startedEpochMs(),
                report.endedEpochMs(), 1, List.of(probe), PlanRun.COMPLETE, List.of(cell), report.verdict());
    }

    // ---- history

    @Override
    public History history() throws RtboxException {
        try {
            return JournalReader.history(journal);
        } catch (IOException e) {
            throw new RtboxException("journal", "cannot read the result journal " + journal.path() + ": " + e.getMessage());
        }
    }

    @Override
    public Page page(String before, int limit) throws RtboxException {
        try {
            return JournalReader.page(journal, before, limit);
        } catch (IOException e) {
            throw new RtboxException("journal", "cannot read the result journal " + journal.path() + ": " + e.getMessage());
        }
    }

    @Override
    public PlanRun run(String id) throws RtboxException {
        try {
            return JournalReader.run(journal, id);
        } catch (IOException e) {
            throw new RtboxException("journal", "cannot read the result journal " + journal.path() + ": " + e.getMessage());
        }
    }

    @Override
    public void hold(String runId, boolean held) {
        bound.hold(runId, held);
    }

    @Override
    public List<String> damaged() throws RtboxException {
        try {
            String name = journal.path().getFileName().toString();
            return JournalReader.damaged(journal).stream().map(d -> name + " " + d).toList();
        } catch (IOException e) {
            throw new RtboxException("journal", "cannot read the result journal " + journal.path() + ": " + e.getMessage());
        }
    }

    static List<String> unmodifiable(List<String> l) {
        return Collections.unmodifiableList(l);
    }
}
