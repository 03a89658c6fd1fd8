package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import rtbox.api.SchedPolicy;

class PlanParserTest {
    static final String OK = "\"rtbox_plan\": 1, \"name\": \"t\", \"probe\": \"timer\", \"duration\": \"2s\"";

    static Stream<Arguments> broken() {
        return Stream.of(
            Arguments.of("not JSON", "{\"rtbox_plan\": 1,", "$: not valid JSON"),
            Arguments.of("not an object", "[1, 2]", "$: a plan is a JSON object ({...}), found an array"),
            Arguments.of("no version", "{\"name\": \"t\", \"probe\": \"timer\", \"duration\": \"2s\"}",
                    "$.rtbox_plan: missing: a plan starts with \"rtbox_plan\": 1"),
            Arguments.of("future version", "{" + OK.replace("\"rtbox_plan\": 1", "\"rtbox_plan\": 2") + "}",
                    "$.rtbox_plan: version 2 is not supported: this rtbox reads plan version 1"),
            Arguments.of("no name", "{\"rtbox_plan\": 1, \"probe\": \"timer\", \"duration\": \"2s\"}",
                    "$.name: missing: give the plan a name"),
            Arguments.of("unknown top key", "{" + OK + ", \"durration\": \"5s\"}", "$.durration: unknown key: known are"),
            Arguments.of("no probe", "{\"rtbox_plan\": 1, \"name\": \"t\", \"duration\": \"2s\"}",
                    "$: no \"probe\": name one here"),
            Arguments.of("no duration", "{\"rtbox_plan\": 1, \"name\": \"t\", \"probe\": \"timer\"}",
                    "$: no \"duration\": give one here, e.g. \"10s\""),
            Arguments.of("bad duration", "{" + OK.replace("\"2s\"", "\"2 weeks\"") + "}",
                    "$.duration: '2 weeks' is not a time such as \"500ms\", \"10s\", \"5m\", \"1h\" or \"1d\""),
            Arguments.of("zero duration", "{" + OK.replace("\"2s\"", "\"0s\"") + "}",
                    "$.duration: \"0s\" must be more than zero"),
            Arguments.of("interval as string", "{" + OK + ", \"parameters\": {\"interval_us\": \"1000\"}}",
                    "$.parameters.interval_us: expected a whole number, found \"1000\""),
            Arguments.of("interval zero", "{" + OK + ", \"parameters\": {\"interval_us\": 0}}",
                    "$.parameters.interval_us: 0 is out of range: use 1 to 10000000"),
            Arguments.of("cpus not array", "{" + OK + ", \"parameters\": {\"cpus\": 1}}",
                    "$.parameters.cpus: expected a CPU list such as [0, 1] or \"0-3,6\", found 1"),
            Arguments.of("policy unknown", "{" + OK + ", \"policy\": \"deadline\"}",
                    "$.policy: 'deadline' is not a policy: use other, batch, idle, fifo[:PRIO], rr[:PRIO] or iso[@PCT][:PRIO]"),
            Arguments.of("priority 100", "{" + OK + ", \"policy\": \"fifo:100\"}",
                    "$.policy: 'fifo:100': priority '100' is not 1 to 99"),
            Arguments.of("iso share 170", "{" + OK + ", \"matrix\": {\"policy\": [\"fifo:80\", \"iso@170\"]}}",
                    "$.matrix.policy[1]: 'iso@170': iso_cpu '170' is not 0 to 100 (per cent)"),
            Arguments.of("share on fifo", "{" + OK + ", \"policy\": \"fifo@70\"}",
                    "$.policy: 'fifo@70': only iso takes a CPU share (@PCT)"),
            Arguments.of("unknown axis", "{" + OK + ", \"matrix\": {\"cpu\": [0, 1]}}",
                    "$.matrix.cpu: unknown axis: known are load, policy"),
            Arguments.of("empty policy axis", "{" + OK + ", \"matrix\": {\"policy\": []}}",
                    "$.matrix.policy: expected a non-empty array of policies"),
            Arguments.of("load axis as array", "{" + OK + ", \"matrix\": {\"load\": [\"pipe\"]}}",
                    "$.matrix.load: expected an object of named load sets"),
            Arguments.of("load without workload", "{" + OK + ", \"loads\": [{\"parameters\": {}}]}",
                    "$.loads[0]: no \"workload\": name the workload, e.g. \"pipe\""),
            Arguments.of("bad load string", "{" + OK + ", \"matrix\": {\"load\": {\"x\": [\"pipe:mode\"]}}}",
                    "$.matrix.load.x[0]: in load 'pipe:mode': 'mode' is not KEY=VALUE"),
            Arguments.of("threshold negative", "{" + OK + ", \"thresholds\": {\"max_us\": -5}}",
                    "$.thresholds.max_us: -5 is out of range: use 0 to any"),
            Arguments.of("threshold -1 (leave it out for none)", "{" + OK + ", \"thresholds\": {\"max_us\": -1}}",
                    "$.thresholds.max_us: -1 is out of range: use 0 to any"),
            Arguments.of("a null CPU", "{" + OK + ", \"parameters\": {\"cpus\": [0, null]}}",
                    "$.parameters.cpus[1]: expected a CPU number, found null"),
            Arguments.of("threshold misspelt", "{" + OK + ", \"thresholds\": {\"max_latency\": 5}}",
                    "$.thresholds.max_latency: unknown key: known are delay_max_us, jvm_stall_us, max_us,"
                            + " missed_deadlines, overflows, p999_us, p99_us, pwcet_per_hour, pwcet_us, xruns"),
            Arguments.of("tuning nice 30", "{" + OK + ", \"tuning\": {\"nice\": 30}}",
                    "$.tuning.nice: 30 is out of range: use -20 to 19"),
            Arguments.of("cell unknown key", "{" + OK + ", \"cells\": [{\"probe\": \"tsc\"}, {\"prob\": \"x\"}]}",
                    "$.cells[1].prob: unknown key: known are duration, loads, loops, name, parameters, policy, probe, pwcet, thresholds,"),
            Arguments.of("cell without probe", "{\"rtbox_plan\": 1, \"name\": \"t\", \"duration\": \"2s\", "
                    + "\"cells\": [{\"probe\": \"tsc\"}, {\"name\": \"second\"}]}",
                    "$.cells[1]: no \"probe\": name one here or at the top"),
            Arguments.of("mlock as string", "{" + OK + ", \"parameters\": {\"mlock\": \"yes\"}}",
                    "$.parameters.mlock: expected true or false, found \"yes\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("broken")
    void brokenPlanIsNamedWithItsPath(String what, String json, String expected) {
        PlanParser.Parsed p = PlanParser.parse(json);
        assertTrue(p.cells().isEmpty(), what + ": no cell of a broken plan runs");
        assertTrue(p.problems().stream().anyMatch(m -> m.startsWith(expected)),
                what + ": expected a problem starting '" + expected + "', got " + p.problems());
    }

    @Test
    void anOldNameIsReadAsItsNewOneWithANote() {
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"t\", \"probe\": \"timer\", "
                + "\"duration\": \"1s\", \"thresholds\": {\"max_latency_us\": 500, \"jvm_stall_budget_us\": 200}}");
        assertEquals(List.of(), p.problems());
        assertEquals(500, p.cells().get(0).thresholds().maxLatencyUs());
        assertEquals(200, p.cells().get(0).thresholds().jvmStallBudgetUs());
        assertEquals(List.of("$.thresholds.max_latency_us: deprecated name (accepted until the next release): write max_us",
                "$.thresholds.jvm_stall_budget_us: deprecated name (accepted until the next release): write jvm_stall_us"),
                p.notes());
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"t\", \"probe\": \"timer\", "
                + "\"duration\": \"soon\", \"policy\": \"fifo:0\", \"parameters\": {\"interval_us\": -1}, "
                + "\"thresholds\": {\"p99\": 10}, \"matrix\": {\"policy\": [\"iso@101\"]}}");
        assertEquals(List.of(
                "$.parameters.interval_us: -1 is out of range: use 1 to 10000000",
                "$.policy: 'fifo:0': priority '0' is not 1 to 99",
                "$.duration: 'soon' is not a time such as \"500ms\", \"10s\", \"5m\", \"1h\" or \"1d\"",
                "$.thresholds.p99: unknown key: known are delay_max_us, jvm_stall_us, max_us, missed_deadlines, overflows, p999_us, p99_us, pwcet_per_hour, pwcet_us, xruns",
                "$.matrix.policy[0]: 'iso@101': iso_cpu '101' is not 0 to 100 (per cent)"), p.problems());
    }

    @Test
    void matrixExpandsIntoCellsWithAxes() {
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"m\", \"probe\": \"timer\", "
                + "\"duration\": \"1s\", \"warmup\": \"200ms\", \"parameters\": {\"interval_us\": 500, \"cpus\": [1]}, "
                + "\"loads\": [\"pipe:mode=rtt\"], \"thresholds\": {\"max_us\": 900},"
                + "\"matrix\": {\"policy\": [\"fifo:80\", \"iso@70\", \"other\"], "
                + "\"load\": {\"none\": [], \"io\": [{\"workload\": \"blockio\", \"parameters\": {\"bs\": \"4k\", \"wrap\": true}}]}}}");
        assertEquals(List.of(), p.problems());
        assertEquals(6, p.cells().size());
        Cell c = p.cells().get(3);
        assertEquals("timer iso@70 +io", c.name());
        assertEquals(java.util.Map.of("policy", "iso@70", "load", "io"), c.axes());
        assertEquals(SchedPolicy.ISO, c.policy().policy());
        assertEquals(70, c.policy().isoCpu());
        assertTrue(c.needsTuner());
        assertEquals(SchedPolicy.FIFO, c.parameters().policy, "checked as FIFO until the tuner decides");
        assertEquals(500, c.parameters().intervalUs);
        assertEquals(1, c.parameters().cpus[0]);
        assertEquals(200_000_000L, c.parameters().warmupNs);
        assertEquals(2, c.loads().size(), "the cell's own load plus the axis' load");
        assertEquals("blockio:bs=4k,wrap=true", c.loads().get(1).toString());
        assertEquals(900, c.thresholds().maxLatencyUs());
        assertEquals(1000, c.thresholds().jvmStallBudgetUs(), "the default JVM stall budget, as rtbox run");
        Cell f = p.cells().get(0);
        assertEquals(SchedPolicy.FIFO, f.parameters().policy);
        assertEquals(80, f.parameters().priority);
        assertEquals(0, p.cells().get(5).parameters().priority);
    }

    @Test
    void cellsOverrideTheTopLevelKeyByKeyInObjects() {
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"c\", \"probe\": \"timer\", "
                + "\"duration\": \"1s\", \"thresholds\": {\"max_us\": 100, \"missed_deadlines\": 0}, "
                + "\"cells\": [{\"name\": \"idle\"}, {\"name\": \"tsc\", \"probe\": \"tsc\", \"duration\": \"3s\", "
                + "\"thresholds\": {\"max_us\": 60000}}]}");
        assertEquals(List.of(), p.problems());
        assertEquals("idle", p.cells().get(0).name());
        assertEquals("$.cells[1]", p.cells().get(1).source());
        assertEquals("tsc", p.cells().get(1).probe());
        assertEquals(3_000_000_000L, p.cells().get(1).parameters().durationNs);
        assertEquals(60000, p.cells().get(1).thresholds().maxLatencyUs());
        assertEquals(0, p.cells().get(1).thresholds().maxMissedDeadlines(), "kept from the top level");
    }

    /** The graph probe's names (JACK's) are limits too: delay_max_us is max_us, xruns are missed deadlines. */
    @Test
    void xrunsAndDelayMaxAreThresholds() {
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"g\", \"probe\": \"graph\", "
                + "\"duration\": \"1s\", \"thresholds\": {\"delay_max_us\": 500, \"xruns\": 0}}");
        assertEquals(List.of(), p.problems());
        assertEquals(500, p.cells().get(0).thresholds().maxLatencyUs());
        assertEquals(0, p.cells().get(0).thresholds().maxMissedDeadlines());
    }

    @Test
    void shippedPlansAreValid() throws Exception {
        Path dir = Path.of("../../plans");
        int n = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".json"))::iterator) {
                PlanParser.Parsed p = PlanParser.parse(Files.readString(f));
                assertEquals(List.of(), p.problems(), f.toString());
                assertTrue(!p.cells().isEmpty(), f.toString());
                n++;
            }
        }
        assertTrue(n >= 3, "quick, standard FAT and seed-004 plans ship in plans/");
    }

    /** A cell as far as a run can tell it: everything the runner, the tuner and the report get from it. */
    static String describe(Cell c) {
        return c.index() + "|" + c.name() + "|" + c.source() + "|" + c.axes() + "|" + c.probe() + "|"
                + c.policy().text() + "|" + c.tuning() + "|" + c.loads() + "|" + c.pwcet() + "|"
                + c.parameters().intervalUs + "|" + java.util.Arrays.toString(c.parameters().cpus) + "|"
                + c.parameters().durationNs + "|" + c.parameters().warmupNs + "|" + c.parameters().priority + "|"
                + c.parameters().options + "|" + c.thresholds();
    }

    /**
     * Issue 35 item 3: every shipped plan (none repeats) reads as before "repetitions" existed,
     * the same as with "repetitions": 1; with 3 its cells run three times interleaved, each
     * repetition the same cells in the same order under the same names, indexed on.
     */
    @Test
    void repetitionsInterleaveTheCellsAndLeaveOldPlansAsTheyWere() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("../../plans"))) {
            for (Path f : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".json"))::iterator) {
                String text = Files.readString(f);
                if (text.contains("\"repetitions\"")) {
                    continue;
                }
                List<String> old = PlanParser.parse(text).cells().stream().map(PlanParserTest::describe).toList();
                for (int i = 0; i < old.size(); i++) {
                    assertTrue(old.get(i).startsWith(i + "|"), f + ": cell " + i + " indexed " + old.get(i));
                }
                String once = text.replaceFirst("\\{", "{\"repetitions\": 1, ");
                assertEquals(old, PlanParser.parse(once).cells().stream().map(PlanParserTest::describe).toList(),
                        f + " with repetitions 1");
                String thrice = text.replaceFirst("\\{", "{\"repetitions\": 3, ");
                PlanParser.Parsed p = PlanParser.parse(thrice);
                if (old.size() * 3 > PlanParser.MAX_CELLS) {
                    continue;
                }
                assertEquals(List.of(), p.problems(), f.toString());
                assertEquals(old.size() * 3, p.cells().size(), f.toString());
                for (int r = 0; r < 3; r++) {
                    for (int i = 0; i < old.size(); i++) {
                        Cell c = p.cells().get(r * old.size() + i);
                        assertEquals(r * old.size() + i, c.index());
                        assertEquals(old.get(i).substring(old.get(i).indexOf('|')),
                                describe(c).substring(describe(c).indexOf('|')), f + " repetition " + (r + 1));
                    }
                }
            }
        }
        PlanParser.Parsed two = PlanParser.parse("{" + OK + ", \"repetitions\": 2, \"cells\": [{\"name\": \"idle\"},"
                + " {\"name\": \"pipe\", \"loads\": [\"pipe\"]}]}");
        assertEquals(List.of("idle", "pipe", "idle", "pipe"), two.cells().stream().map(Cell::name).toList());
    }

    @Test
    void badRepetitionsAreNamedWithTheirPath() {
        for (String bad : List.of("0", "101", "2.5", "\"3\"")) {
            PlanParser.Parsed p = PlanParser.parse("{" + OK + ", \"repetitions\": " + bad + "}");
            assertEquals(List.of("$.repetitions: expected a whole number of runs of each cell from 1 to 100, e.g. 5,"
                    + " found " + bad), p.problems());
        }
        PlanParser.Parsed same = PlanParser.parse("{" + OK + ", \"repetitions\": 3, \"cells\": [{\"name\": \"a\"},"
                + " {\"name\": \"a\"}]}");
        assertEquals(List.of("$.cells[1]: a second cell named 'a': with \"repetitions\" every cell needs a name of its"
                + " own (a repeated cell is known by its name)"), same.problems());
        PlanParser.Parsed many = PlanParser.parse("{" + OK + ", \"repetitions\": 100, \"matrix\": {\"policy\":"
                + " [\"fifo:1\", \"fifo:2\", \"fifo:3\", \"fifo:4\", \"fifo:5\", \"fifo:6\", \"fifo:7\", \"fifo:8\","
                + " \"fifo:9\", \"fifo:10\", \"fifo:11\"]}}");
        assertEquals(List.of("$: the plan has 1100 cells (1 cell entries x 11 matrix combinations x 100 repetitions):"
                + " at most 1000; split it into several plans"), many.problems());
    }

    @Test
    void plansTooBigToRunAreRefusedBeforeTheirCellsAreMade() {
        StringBuilder cells = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            cells.append(i == 0 ? "" : ",").append("{\"name\":\"c").append(i).append("\"}");
        }
        PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"big\", \"probe\": \"timer\", "
                + "\"duration\": \"1s\", \"cells\": [" + cells + "]}");
        assertTrue(p.problems().toString().contains("the plan has 10000 cells"), p.problems().toString());
        assertEquals(0, p.cells().size());

        StringBuilder loads = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            loads.append(i == 0 ? "" : ",").append("\"l").append(i).append("\":[\"pipe\"]");
        }
        p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"m\", \"probe\": \"timer\", \"duration\": \"1s\","
                + " \"matrix\": {\"load\": {" + loads + "}, \"policy\": [\"other\", \"fifo:50\"]}}");
        assertTrue(p.problems().toString().contains("the plan has 2000 cells (1 cell entries x 2000 matrix"),
                p.problems().toString());

        p = PlanParser.parse("{\"rtbox_plan\": 1, \"name\": \"long\", \"probe\": \"timer\", \"duration\": \"5d\","
                + " \"cells\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}");
        assertTrue(p.problems().toString().contains("add up to 240 h: at most 168 h"), p.problems().toString());
    }

    /** The schema version is a whole number, exactly: 1.5 or 1e30 is not version 1 (issue 33). */
    @Test
    void aFractionalOrOutOfRangeSchemaVersionIsNamed() {
        for (String v : new String[] {"1.5", "1e30", "1.0000000000000000001"}) {
            PlanParser.Parsed p = PlanParser.parse("{\"rtbox_plan\": " + v + ", \"name\": \"t\", \"probe\": \"timer\", "
                    + "\"duration\": \"1s\"}");
            assertEquals(List.of("$.rtbox_plan: expected the schema version 1, found " + v), p.problems(), v);
        }
        assertEquals(List.of(), PlanParser.parse("{\"rtbox_plan\": 1.0, \"name\": \"t\", \"probe\": \"timer\", "
                + "\"duration\": \"1s\"}").problems());
    }
}
