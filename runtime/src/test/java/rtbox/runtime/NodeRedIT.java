package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Issue 34 item 5: docs/mqtt.md's Node-RED flow, docs/node-red/rtbox-results.json, as a site
 * imports it, reads results straight from the broker. A real Node-RED (npm's node-red 4, which
 * .ci/run installs) runs the flow file as it is, with the broker user's credentials in its
 * credentials file as its editor stores them, on the control room's listener of a broker made
 * from docs/mosquitto.conf and docs/mosquitto.acl (the {@code results} user, client id
 * rtbox-node-red); a real appliance runs a plan of one cell and a run over MQTT. Each result
 * becomes one line whose figures are the message's at the JSON paths the doc names; the plan's
 * messages published again by {@code results} are dropped by (run, sequence); the function the
 * doc shows is the flow's.
 */
class NodeRedIT {
    static final String A = MqttIT.A;
    static final String BROKER_NODE = "a1b2c3d4e5f60002";
    /** The figures the flow copies, as docs/mqtt.md lists them. */
    static final List<String> FIGURES = List.of("probe", "samples", "min_us", "p50_us", "p99_us", "p999_us", "max_us",
            "missed_deadlines", "overflows", "verdict", "appliance", "run", "sequence", "type", "timestamp");

    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    @TempDir
    Path nodeRedDir;
    Mosquitto broker;
    Rtbox rtbox;
    ControlRoom control;
    Process nodeRed;

    /** npm's node-red: without it skipped on a developer's machine, failed in CI (.ci/run installs it). */
    private static String nodeRed() {
        for (String p : new String[] {"/usr/bin/node-red", "/usr/local/bin/node-red"}) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        Assumptions.assumeTrue(System.getenv("CI") != null, "no node-red here (npm install -g node-red@4): skipped");
        throw new AssertionError("CI must install node-red (.ci/run does): no /usr/bin/node-red");
    }

    @Test
    void theDocumentedFlowWritesEachResultOnceWithTheMessagesFigures() throws Exception {
        String nodeRedBin = nodeRed();
        broker = Mosquitto.site(brokerDir, List.of("results"), A);
        control = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "a1 not online: " + rtbox.err);

        // The flow as the doc gives it; the user and password as Node-RED's editor keeps them
        // (its credentials file, here unencrypted: credentialSecret false); the environment the doc names.
        Files.copy(Path.of("..", "docs", "node-red", "rtbox-results.json"), nodeRedDir.resolve("flows.json"));
        Files.writeString(nodeRedDir.resolve("flows_cred.json"), "{\"" + BROKER_NODE + "\":{\"user\":\"results\","
                + "\"password\":\"" + Mosquitto.PASSWORD + "\"}}");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Files.writeString(nodeRedDir.resolve("settings.js"), "module.exports = {uiHost: \"127.0.0.1\", uiPort: " + port + ","
                + " credentialSecret: false, flowFile: \"flows.json\", httpAdminRoot: false, httpNodeRoot: false};\n");
        Path results = nodeRedDir.resolve("out/results.jsonl");
        Path log = nodeRedDir.resolve("node-red.log");
        ProcessBuilder pb = new ProcessBuilder(nodeRedBin, "-u", nodeRedDir.toString(), "-s",
                nodeRedDir.resolve("settings.js").toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("RTBOX_BROKER_HOST", "127.0.0.1");
        pb.environment().put("RTBOX_BROKER_PORT", Integer.toString(broker.controlPort));
        pb.environment().put("RTBOX_RESULTS_FILE", results.toString());
        nodeRed = pb.start();
        Await.until(60_000, () -> "Node-RED did not connect: " + Files.readString(log),
                () -> Files.readString(log).contains("Connected to broker: rtbox-node-red@mqtt://127.0.0.1:"));

        // A plan of one cell: its cell's message and the plan's result.
        String planId = control.command(A, "plan", "\"plan\":{\"rtbox_plan\":1,\"name\":\"nr\",\"probe\":\"timer\","
                + "\"duration\":\"1s\",\"warmup\":\"0\",\"cells\":[{\"name\":\"idle\"}]}");
        ControlRoom.Received accepted = control.reply(A, planId, 30_000);
        assertEquals(200, accepted.json().get("code").getAsInt(), accepted.json().toString());
        String plan = accepted.json().getAsJsonObject("body").get("run").getAsString();
        JsonObject cell = message(plan, "cell", 1);
        JsonObject planResult = message(plan, "result", 1);
        Await.until(60_000, () -> "the flow wrote " + lines(results), () -> lines(results).size() >= 2);

        // The same messages again ("results" publishes them again with their numbers), then a run.
        String again = control.command(A, "results", "\"run\":\"" + plan + "\"");
        assertEquals(200, control.reply(A, again, 30_000).json().get("code").getAsInt());
        message(plan, "result", 2);
        String runId = control.command(A, "run", MqttIT.RUN);
        assertEquals(200, control.reply(A, runId, 30_000).json().get("code").getAsInt());
        String run = control.await(m -> m.topic().startsWith("rtbox/v1/up/a1/runs/") && m.topic().endsWith("/result")
                && !m.topic().contains(plan), 60_000).json().get("run").getAsString();
        JsonObject runResult = message(run, "result", 1);
        // The run's line comes after the repeats, which came before it on the same connection.
        Await.until(60_000, () -> "the flow wrote " + lines(results), () -> lines(results).size() >= 3
                && lines(results).stream().anyMatch(l -> run.equals(l.get("run").getAsString())));

        List<JsonObject> written = lines(results);
        written.forEach(l -> System.out.println("NodeRedIT: the flow wrote " + l));
        assertEquals(3, written.size(), "one line per message, repeats dropped: " + written);
        assertFigures(cell, written.get(0));
        assertEquals("idle", written.get(0).get("cell_name").getAsString());
        assertEquals(1, written.get(0).get("cell").getAsInt());
        JsonObject p = written.get(1);
        for (String k : List.of("appliance", "run", "sequence", "type", "verdict", "plan", "state", "cells_planned",
                "cells_run")) {
            assertEquals(planResult.get(k), p.get(k), k + " of the plan's line " + p);
        }
        assertFigures(runResult, written.get(2));
        assertTrue(written.get(2).get("samples").getAsLong() > 0, written.get(2).toString());

        // The function docs/mqtt.md shows is the one in the flow file.
        String doc = Files.readString(Path.of("..", "docs", "mqtt.md"));
        String shown = doc.substring(doc.indexOf("```js\n") + 6, doc.indexOf("```", doc.indexOf("```js\n") + 6));
        JsonArray flow = JsonParser.parseString(Files.readString(nodeRedDir.resolve("flows.json"))).getAsJsonArray();
        String func = null;
        for (JsonElement n : flow) {
            if (n.getAsJsonObject().get("type").getAsString().equals("function")) {
                func = n.getAsJsonObject().get("func").getAsString();
            }
        }
        assertEquals(func.strip(), shown.strip(), "docs/mqtt.md's function and the flow's differ");
        assertTrue(doc.contains("rtbox/v1/up/+/runs/#"), "the doc's topic filter");
    }

    /** Every figure of {@code message} the flow copies is on {@code line}, the same JSON value. */
    private static void assertFigures(JsonObject message, JsonObject line) {
        for (String f : FIGURES) {
            if (message.has(f)) {
                assertEquals(message.get(f), line.get(f), f + " of " + line + " against the message");
            }
        }
        assertTrue(message.has("p99_us") && message.has("max_us"), "a result without p99_us, max_us: " + message);
    }

    /** The {@code nth} message of {@code run} of {@code type} (cell, result) that the control room received. */
    private JsonObject message(String run, String type, int nth) throws InterruptedException {
        String topic = "rtbox/v1/up/a1/runs/" + run + "/" + type;
        Await.until(60_000, () -> "no " + type + " message " + nth + " of " + run,
                () -> control.all(m -> m.topic().equals(topic)).size() >= nth);
        return control.all(m -> m.topic().equals(topic)).get(nth - 1).json();
    }

    private static List<JsonObject> lines(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank())
                .map(l -> JsonParser.parseString(l).getAsJsonObject()).toList();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (nodeRed != null) {
            nodeRed.destroy();
            if (!nodeRed.waitFor(10, TimeUnit.SECONDS)) {
                nodeRed.destroyForcibly().waitFor();
            }
        }
        if (control != null) {
            control.close();
        }
        if (rtbox != null) {
            rtbox.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
