package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.cli.internal.RunArgs;
import rtbox.core.Thresholds;
import rtbox.ctl.internal.CtlCommand;
import rtbox.mqtt.internal.RunJson;
import rtbox.plan.internal.PlanText;

/**
 * The four front ends that describe a run (rtbox run's options, a plan, the MQTT run verb,
 * rtbox ctl run) read the same values the same way: one table of good and bad values, each
 * tried on every front end. Nothing is run and no runtime is booted: it calls each front
 * end's reader from the real bundles' jars (hence an IT: it needs them all).
 */
class RunSchemaIT {
    /** A time and what it is in ns; -1: every front end refuses it. */
    record Time(String text, long ns) {
    }

    static final List<Time> TIMES = List.of(new Time("1h", 3_600_000_000_000L), new Time("1d", 86_400_000_000_000L),
            new Time("10s", 10_000_000_000L), new Time("90", 90_000_000_000L), new Time("1.5m", 90_000_000_000L),
            new Time("500ms", 500_000_000L), new Time("2H", 7_200_000_000_000L),
            new Time("1x", -1), new Time("soon", -1), new Time("-5s", -1), new Time("1 week", -1), new Time("h", -1));

    static long cli(String... args) throws RtboxException {
        return RunArgs.request(args).parameters().durationNs;
    }

    static String plan(String members) {
        return "{\"rtbox_plan\":1,\"name\":\"t\",\"probe\":\"timer\"," + members + ",\"cells\":[{\"name\":\"a\"}]}";
    }

    static RunParameters mqtt(String parameters, String thresholds) throws RtboxException {
        JsonObject c = JsonParser.parseString("{\"probe\":\"timer\",\"parameters\":{" + parameters + "},"
                + "\"thresholds\":{" + thresholds + "}}").getAsJsonObject();
        return RunJson.parse(c, "test").parameters();
    }

    static Thresholds mqttThresholds(String thresholds) throws RtboxException {
        JsonObject c = JsonParser.parseString("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},"
                + "\"thresholds\":{" + thresholds + "}}").getAsJsonObject();
        return RunJson.parse(c, "test").thresholds();
    }

    @Test
    void oneTimeGrammarEverywhere() throws Exception {
        for (Time t : TIMES) {
            String json = "\"" + t.text() + "\"";
            if (t.ns() >= 0) {
                assertEquals(t.ns(), cli("timer", "-D", t.text()), "rtbox run -D " + t.text());
                String p = plan("\"duration\":" + json);
                assertEquals(List.of(), PlanText.problems(p), "plan duration " + t.text());
                assertEquals(t.ns(), PlanText.firstParameters(p).durationNs, "plan duration " + t.text());
                assertEquals(t.ns(), mqtt("\"duration\":" + json, "").durationNs, "MQTT run duration " + t.text());
                assertEquals(t.ns(), CtlCommand.durationNs(t.text()), "ctl run -D " + t.text());
            } else {
                RtboxException e = assertThrows(RtboxException.class, () -> cli("timer", "-D", t.text()),
                        "rtbox run -D " + t.text());
                assertTrue(e.getMessage().contains("'" + t.text() + "'"), e.getMessage());
                List<String> problems = PlanText.problems(plan("\"duration\":" + json));
                assertFalse(problems.isEmpty(), "plan duration " + t.text());
                assertTrue(problems.get(0).startsWith("$.duration: '" + t.text() + "'"), problems.toString());
                e = assertThrows(RtboxException.class, () -> mqtt("\"duration\":" + json, ""), "MQTT " + t.text());
                assertEquals("duration", e.subject(), e.getMessage());
                assertThrows(RtboxException.class, () -> CtlCommand.durationNs(t.text()), "ctl run -D " + t.text());
            }
        }
    }

    @Test
    void oneCpuListGrammar() throws Exception {
        for (String good : new String[] {"0-1", "0,1", " 0 - 1 "}) {
            assertArrayEquals(new int[] {0, 1}, RunArgs.request("timer", "-D", "1s", "-a", good).parameters().cpus);
            String p = plan("\"duration\":\"1s\",\"parameters\":{\"cpus\":\"" + good + "\"}");
            assertEquals(List.of(), PlanText.problems(p), good);
            assertArrayEquals(new int[] {0, 1}, PlanText.firstParameters(p).cpus);
            assertArrayEquals(new int[] {0, 1}, mqtt("\"duration\":\"1s\",\"cpus\":\"" + good + "\"", "").cpus);
        }
        for (String bad : new String[] {"1-0", "x", "-1", "0-5000", "0-2000000000"}) {
            assertThrows(RtboxException.class, () -> RunArgs.request("timer", "-D", "1s", "-a", bad), bad);
            assertFalse(PlanText.problems(plan("\"duration\":\"1s\",\"parameters\":{\"cpus\":\"" + bad + "\"}"))
                    .isEmpty(), bad);
            assertThrows(RtboxException.class, () -> mqtt("\"duration\":\"1s\",\"cpus\":\"" + bad + "\"", ""), bad);
        }
    }

    @Test
    void oneNamePerThresholdWithTheAliasesUsersType() throws Exception {
        assertEquals(150, RunArgs.request("timer", "-D", "1s", "--max-latency", "150").thresholds().maxLatencyUs());
        for (String name : new String[] {"max_latency_us", "max_us"}) {
            Thresholds p = PlanText.firstThresholds(plan("\"duration\":\"1s\",\"thresholds\":{\"" + name + "\":150}"));
            assertEquals(150, p.maxLatencyUs(), name);
            assertEquals(150, mqttThresholds("\"" + name + "\":150").maxLatencyUs(), name);
        }
        assertEquals(20, mqttThresholds("\"p99_us\":20").p99Us());
        assertEquals(20, mqttThresholds("\"max_p99_us\":20").p99Us());
        assertEquals(5, PlanText.firstThresholds(plan("\"duration\":\"1s\",\"thresholds\":{\"max_missed\":5}"))
                .maxMissedDeadlines());
        // The same threshold twice, under two of its names: refused, naming both.
        assertTrue(PlanText.problems(plan("\"duration\":\"1s\",\"thresholds\":{\"max_us\":1,\"max_latency_us\":2}"))
                .get(0).contains("the same threshold as max_us"));
        assertThrows(RtboxException.class, () -> mqttThresholds("\"max_us\":1,\"max_latency_us\":2"));
        // Defaults are the schema's: no latency threshold, a 1000 us JVM stall budget.
        Thresholds none = mqttThresholds("");
        assertEquals(-1, none.maxLatencyUs());
        assertEquals(1000, none.jvmStallBudgetUs());
        assertEquals(1000, PlanText.firstThresholds(plan("\"duration\":\"1s\"")).jvmStallBudgetUs());
        assertEquals(1000, RunArgs.request("timer", "-D", "1s").thresholds().jvmStallBudgetUs());
    }

    @Test
    void onePolicyParser() throws Exception {
        assertEquals(SchedPolicy.FIFO, RunArgs.request("timer", "-D", "1s", "--policy", "FIFO", "-p", "10")
                .parameters().policy);
        assertEquals(SchedPolicy.FIFO, PlanText.firstParameters(plan("\"duration\":\"1s\",\"policy\":\"fifo:10\""))
                .policy);
        assertEquals(SchedPolicy.FIFO, mqtt("\"duration\":\"1s\",\"policy\":\"fifo\",\"priority\":10", "").policy);
        assertEquals(SchedPolicy.OTHER, mqtt("\"duration\":\"1s\",\"policy\":\"normal\"", "").policy);
        assertThrows(RtboxException.class, () -> RunArgs.request("timer", "-D", "1s", "--policy", "realtime"));
        assertFalse(PlanText.problems(plan("\"duration\":\"1s\",\"policy\":\"realtime\"")).isEmpty());
        assertThrows(RtboxException.class, () -> mqtt("\"duration\":\"1s\",\"policy\":\"realtime\"", ""));
    }
}
