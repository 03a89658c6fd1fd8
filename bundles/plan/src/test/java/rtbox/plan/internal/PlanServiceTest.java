package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.api.Policy;
import rtbox.api.PolicyHandle;
import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.core.LoadSpec;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.plan.CellResult;
import rtbox.plan.PlanException;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/** The plan service against a stand-in runner and tuner: order, failures, stop, journal, verdicts. */
class PlanServiceTest {
    @TempDir
    Path dir;
    PlanService service;
    FakeRunner runner;
    FakeTuner tuner;

    @BeforeEach
    void setUp() {
        service = new PlanService();
        runner = new FakeRunner();
        service.runner = runner;
        tuner = new FakeTuner();
        service.addPolicy(tuner, Map.of(Policy.NAME, "sched"));
        service.journal(dir.resolve("results.journal"));
    }

    Path plan(String body) throws Exception {
        Path f = dir.resolve("plan.json");
        Files.writeString(f, "{\"rtbox_plan\": 1, \"name\": \"p\", \"duration\": \"1s\", " + body + "}");
        return f;
    }

    @Test
    void aFailingCellDoesNotLoseTheOthersAndEveryCellIsJournalledBeforeItIsReported() throws Exception {
        Path f = plan("\"cells\": [{\"probe\": \"timer\"}, {\"probe\": \"boom\"}, {\"probe\": \"timer\"}]");
        List<String> events = new ArrayList<>();
        PlanRun run = service.run(f, new Plans.Listener() {
            @Override
            public void planStarted(String runId, List<String> cellNames) {
                try {
                    // The id is the journal's, and the plan's start is already in it.
                    events.add("plan " + cellNames + " journal " + service.history().runs().get(0).id()
                            .equals(runId));
                } catch (RtboxException e) {
                    throw new AssertionError(e);
                }
            }

            @Override
            public void cellStarted(int index, int count, String name) {
                events.add("start " + index + "/" + count + " " + name);
            }

            @Override
            public void cellFinished(CellResult cell, int count) {
                try {
                    int inJournal = (int) service.history().runs().get(0).cells().size();
                    events.add("done " + cell.index() + " " + cell.verdict().outcome() + " journal " + inJournal);
                } catch (RtboxException e) {
                    throw new AssertionError(e);
                }
            }
        });
        assertEquals(List.of("plan [timer, boom, timer] journal true", "start 0/3 timer", "done 0 PASS journal 1", "start 1/3 boom", "done 1 ERROR journal 2",
                "start 2/3 timer", "done 2 PASS journal 3"), events);
        assertEquals(Outcome.ERROR, run.verdict().outcome());
        assertEquals("1 of 3 cells could not run: boom", run.verdict().reason());
        assertEquals("probe boom blew up", run.cells().get(1).error());
        assertNull(run.cells().get(1).report());
        assertEquals(PlanRun.COMPLETE, run.state());
        assertEquals(2, runner.runs.size(), "one at a time, the broken one in between");
    }

    @Test
    void aPolicyMatrixGoesThroughTheTunerWhichDecidesTheThreadPolicy() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"iso@70:80\", \"other\"], "
                + "\"load\": {\"none\": [], \"pipe\": [\"pipe:mode=rtt\"]}}");
        PlanRun run = service.run(f, null);
        assertEquals(4, run.cells().size());
        assertEquals(List.of(Map.of("policy", "iso", "priority", "80", "iso_cpu", "70"),
                Map.of("policy", "iso", "priority", "80", "iso_cpu", "70")), tuner.applied);
        assertEquals(0, tuner.open, "every handle closed");
        RunRequest iso = runner.runs.get(0);
        assertEquals(SchedPolicy.FIFO, iso.parameters().policy);
        assertEquals(80, iso.parameters().priority);
        assertEquals(List.of(), iso.loads());
        assertEquals("pipe:mode=rtt", runner.runs.get(1).loads().get(0).toString());
        assertEquals(SchedPolicy.OTHER, runner.runs.get(2).parameters().policy);
        assertEquals("iso -> fifo/80", run.cells().get(0).policyChanges().get("thread.policy"));
    }

    @Test
    void stoppedAfterTheFirstCell() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"rr:50\", \"other\"]}");
        PlanRun run = service.run(f, new Plans.Listener() {
            @Override
            public void cellFinished(CellResult cell, int count) {
                service.stop();
            }
        });
        assertEquals(PlanRun.STOPPED, run.state());
        assertEquals(1, run.cells().size());
        assertEquals(Outcome.INCONCLUSIVE, run.verdict().outcome());
        assertEquals("only 1 of 3 cells ran (stopped); none of those failed", run.verdict().reason());
        Plans.History h = service.history();
        assertEquals(PlanRun.STOPPED, h.runs().get(0).state());
    }

    @Test
    void aRunThatDiedIsReadBackAsInterrupted() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"rr:50\"]}");
        service.run(f, null);
        // Cut the journal after the first cell, as a kill -9 would have.
        Path j = dir.resolve("results.journal");
        List<String> lines = Files.readAllLines(j);
        Files.write(j, lines.subList(0, 2));
        Files.writeString(j, lines.get(2).substring(0, 40), java.nio.file.StandardOpenOption.APPEND);
        Plans.History h = service.history();
        PlanRun r = h.runs().get(0);
        assertEquals(PlanRun.INTERRUPTED, r.state());
        assertEquals(1, r.cells().size());
        assertEquals(Outcome.INCONCLUSIVE, r.verdict().outcome());
        assertTrue(r.verdict().reason().contains("killed or the power cut"), r.verdict().reason());
        assertEquals(1, h.damaged().size());
    }

    @Test
    void aCellCarriesItsRunsVerdictEvenWhenTheJvmWasTheWorst() throws Exception {
        // One rule (rtbox.core's VerdictRule): a pass whose worst wake-up was a JVM pause stays the
        // run's PASS; the plan no longer decides a cell's verdict again (it said INCONCLUSIVE here).
        runner.jvmWorst = true;
        PlanRun run = service.run(plan("\"probe\": \"timer\""), null);
        CellResult c = run.cells().get(0);
        assertEquals(c.report().verdict(), c.verdict());
        assertEquals(Outcome.PASS, c.verdict().outcome());
    }

    @Test
    void aSingleRunIsJournalledAsARunOfOneCell() throws Exception {
        RunParameters p = RunParameters.builder().policy(SchedPolicy.FIFO).priority(99).build();
        RunReport r = runner.run(new RunRequest("timer", p, rtbox.core.Thresholds.NONE, "rtbox run timer -p 99"), f -> { });
        service.record(r);
        PlanRun back = service.history().runs().get(0);
        assertEquals("run timer", back.plan());
        assertEquals("rtbox run timer -p 99", back.description());
        assertEquals("fifo:99", back.cells().get(0).policy());
        assertEquals(PlanRun.COMPLETE, back.state());
        assertEquals(Outcome.PASS, back.verdict().outcome());
        assertEquals(80, back.cells().get(0).worstUs());
    }

    @Test
    void theJournalStaysWithinItsBoundDroppingTheOldestRunsButNeverAHeldOne() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"rr:50\"]}");
        Path j = dir.resolve("results.journal");
        List<String> ids = new ArrayList<>();
        ids.add(service.run(f, null).id());
        long one = Files.size(j);
        service.bound().maxBytes(one * 7 / 2);
        service.hold(ids.get(0), true);
        for (int i = 0; i < 12; i++) {
            ids.add(service.run(f, null).id());
            assertTrue(Files.size(j) <= one * 7 / 2 + one, "at most one run over the bound: " + Files.size(j));
        }
        List<String> left = service.history().runs().stream().map(PlanRun::id).toList();
        assertEquals(ids.get(0), left.get(0), "the held run is kept");
        List<String> rest = left.subList(1, left.size());
        assertTrue(rest.size() >= 2 && rest.size() <= 3, left.toString());
        assertEquals(ids.subList(ids.size() - rest.size(), ids.size()), rest, "the newest runs, in a row");
        assertTrue(service.history().damaged().isEmpty());
        service.hold(ids.get(0), false);
        ids.add(service.run(f, null).id());
        ids.add(service.run(f, null).id());
        assertFalse(service.history().runs().stream().anyMatch(r -> r.id().equals(ids.get(0))), "released: dropped");
        assertFalse(Files.exists(dir.resolve("results.journal.tmp")));
    }

    @Test
    void anUnboundedJournalKeepsEveryRun() throws Exception {
        Path f = plan("\"probe\": \"timer\"");
        service.bound().maxBytes(0);
        for (int i = 0; i < 5; i++) {
            service.run(f, null);
        }
        assertEquals(5, service.history().runs().size());
    }

    @Test
    void pagesOfSummariesGoBackThroughTheJournalAndOneRunReadsBackWhole() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"rr:50\"]}");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(service.run(f, null).id());
        }
        Plans.Page p = service.page(null, 2);
        assertEquals(ids.subList(3, 5), p.runs().stream().map(Plans.Summary::id).toList());
        assertEquals(5, p.total());
        assertEquals(ids.get(3), p.older());
        assertEquals(2, p.runs().get(1).cellsRun());
        assertEquals(Outcome.PASS, p.runs().get(1).verdict().outcome());
        p = service.page(p.older(), 2);
        assertEquals(ids.subList(1, 3), p.runs().stream().map(Plans.Summary::id).toList());
        p = service.page(p.older(), 2);
        assertEquals(ids.subList(0, 1), p.runs().stream().map(Plans.Summary::id).toList());
        assertNull(p.older(), "the oldest page");
        assertEquals(List.of(), service.page("no-such-run", 2).runs());
        assertEquals(5, service.page(null, 0).total(), "limit 0: a count");
        assertEquals(List.of(), service.page(null, 0).runs());
        PlanRun back = service.run(ids.get(2));
        assertEquals(ids.get(2), back.id());
        assertEquals(2, back.cells().size());
        assertEquals(80, back.cells().get(0).worstUs(), "with its reports");
        assertNull(service.run("no-such-run"));
    }

    @Test
    void aSummaryOfAnInterruptedRunHasTheVerdictItsCellsGive() throws Exception {
        Path f = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"rr:50\"]}");
        service.run(f, null);
        Path j = dir.resolve("results.journal");
        List<String> lines = Files.readAllLines(j);
        Files.write(j, lines.subList(0, 2));
        Plans.Summary s = service.page(null, 10).runs().get(0);
        assertEquals(PlanRun.INTERRUPTED, s.state());
        assertEquals(1, s.cellsRun());
        assertEquals(service.history().runs().get(0).verdict(), s.verdict());
    }

    @Test
    void checkNamesTheCellsAProblemHits() throws Exception {
        Path f = plan("\"probe\": \"nosuch\", \"matrix\": {\"policy\": [\"fifo:50\", \"iso@90\"]}");
        PlanException e = assertThrows(PlanException.class, () -> service.check(f));
        assertEquals(List.of("$ (every cell): unknown probe 'nosuch': available are boom, timer"), e.problems());
        service.removePolicy(tuner, Map.of(Policy.NAME, "sched"));
        Path g = plan("\"probe\": \"timer\", \"matrix\": {\"policy\": [\"fifo:50\", \"iso@90\"]}");
        e = assertThrows(PlanException.class, () -> service.run(g, null));
        assertEquals(List.of("$ (cell 'timer iso@90'): policy 'iso@90' need the scheduling tuner (rtbox.policy.sched), "
                + "which is not installed"), e.problems());
        assertTrue(runner.runs.isEmpty(), "nothing ran");
        assertFalse(Files.exists(dir.resolve("results.journal")));
    }

    // ---- stand-ins

    static final class FakeRunner implements Runner {
        final List<RunRequest> runs = new ArrayList<>();
        boolean jvmWorst;

        @Override
        public Set<String> probes() {
            return new java.util.TreeSet<>(Set.of("timer", "boom"));
        }

        @Override
        public void check(RunRequest request) throws RtboxException {
            if (!probes().contains(request.probe())) {
                throw new RtboxException("probe", "unknown probe '" + request.probe() + "': available are boom, timer");
            }
        }

        @Override
        public RunReport run(RunRequest request, ProgressListener progress) throws RtboxException {
            if (request.probe().equals("boom")) {
                throw new RtboxException("probe", "probe boom blew up");
            }
            runs.add(request);
            progress.progress(1.0);
            long max = request.loads().isEmpty() ? 80_000 : 120_000;
            List<Spike> spikes = jvmWorst ? List.of(new Spike(0, 500_000_000L, 900_000, "JVM pause", "GC 0.9 ms"))
                    : List.of();
            if (jvmWorst) {
                max = 900_000;
            }
            Histogram h = new Histogram(1000, new long[] {10, 5}, 0, 15, 1000, max, 20_000, 10_000, 60_000, max);
            ThreadResult t = new ThreadResult(0, 0, 1234, request.parameters().policy.lowerName(),
                    request.parameters().priority, 15, 0, h, new CorrectedLatency(15, 10_000, 60_000, max, max, ""),
                    spikes, 0);
            ProbeResult pr = new ProbeResult(request.probe(), request.parameters().toString(), "CLOCK_MONOTONIC", 0,
                    1_000_000_000L, true, List.of(t), Map.of("interval_us", 1000.0), List.of());
            Verdict v = new Verdict(Outcome.PASS, List.of(), "all thresholds met");
            return new RunReport(RunReport.SCHEMA, "r", 0, 1, request.command(), pr, h, List.of(), Map.of(), List.of(),
                    new SystemInfo(Map.of()), v);
        }

        @Override
        public Set<String> workloads() {
            return Set.of("pipe");
        }

        @Override
        public Map<String, Double> load(LoadSpec load, long durationNs, ProgressListener progress) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stop() {
        }
    }

    static final class FakeTuner implements Policy {
        final List<Map<String, String>> applied = new ArrayList<>();
        int open;

        @Override
        public PolicyHandle apply(Map<String, String> settings, rtbox.api.RunContext context) {
            Map<String, String> changes = new java.util.LinkedHashMap<>();
            String p = settings.get("policy");
            if (p.equals("iso")) {
                applied.add(settings);
                changes.put("thread.policy", "iso -> fifo/" + settings.getOrDefault("priority", "50"));
                changes.put("note.iso", "SCHED_ISO is absent on this kernel");
            } else {
                changes.put("thread.policy", p + " -> " + p + "/" + settings.getOrDefault("priority", "0"));
            }
            open++;
            return new PolicyHandle() {
                @Override
                public Map<String, String> changes() {
                    return changes;
                }

                @Override
                public void close() {
                    open--;
                }
            };
        }
    }

    static RunParameters unused() {
        return RunParameters.builder().build();
    }
}
