package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Commands over MQTT: each bad command gets its own clear error reply and the
 * appliance keeps serving; a repeated request id is answered, not executed twice;
 * one run at a time; a retained command is ignored; bundles are installed only with
 * the right SHA-256; configuration is read with passwords masked.
 */
class MqttCommandsIT extends MqttFixture {
    static final String A = MqttIT.A;

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, 10_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    private JsonObject replyNone(String text) throws InterruptedException {
        ControlRoom.Received r = control.await(m -> m.topic().equals("rtbox/v1/up/a1/reply/none")
                && m.payload().contains(text), 10_000);
        assertNotNull(r, "no reply/none containing " + text + "; stderr: " + rtbox.err);
        return r.json();
    }

    private static String expires(long seconds) {
        return Instant.now().plusSeconds(seconds).toString();
    }

    @Test
    void badCommandsEachGetTheirErrorAndTheApplianceKeepsServing() throws Exception {
        broker = new Mosquitto(brokerDir, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        // A retained command waiting on the broker before the appliance subscribes: ignored.
        String stale = UUID.randomUUID().toString();
        control.client.publish("rtbox/v1/down/a1/cmd/status", ("{\"requestId\":\"" + stale + "\",\"expires\":\""
                + expires(600) + "\"}").getBytes(), 1, true);
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "not online: " + rtbox.err);

        control.send("rtbox/v1/down/a1/cmd/status", "{\"requestId\": \"x1\", \"expires\": ");
        JsonObject r = replyNone("not valid JSON");
        assertEquals(400, r.get("code").getAsInt());

        String id = control.command(A, "frobnicate", "");
        r = reply(id);
        assertEquals(404, r.get("code").getAsInt());
        assertTrue(r.get("message").getAsString().contains("unknown verb 'frobnicate'"), r.toString());

        control.send("rtbox/v1/down/a1/cmd/status", "{\"expires\":\"" + expires(60) + "\"}");
        r = replyNone("requestId is missing");
        assertEquals(400, r.get("code").getAsInt());

        id = UUID.randomUUID().toString();
        control.send("rtbox/v1/down/a1/cmd/status", "{\"requestId\":\"" + id + "\",\"expires\":\""
                + Instant.now().minusSeconds(5) + "\"}");
        r = reply(id);
        assertEquals(400, r.get("code").getAsInt());
        assertTrue(r.get("message").getAsString().contains("expired"), r.toString());

        id = UUID.randomUUID().toString();
        control.send("rtbox/v1/down/a1/cmd/status", "{\"requestId\":\"" + id + "\"}");
        assertTrue(reply(id).get("message").getAsString().contains("expires is missing"));

        id = control.command(A, "status", "\"appliance\":\"b1\"");
        r = reply(id);
        assertEquals(400, r.get("code").getAsInt());
        assertTrue(r.get("message").getAsString().contains("addressed to appliance 'b1'"), r.toString());

        byte[] jar = fixtureJar();
        id = control.command(A, "install", "\"data\":\"" + Base64.getEncoder().encodeToString(jar)
                + "\",\"sha256\":\"" + "0".repeat(64) + "\"");
        r = reply(id);
        assertEquals(400, r.get("code").getAsInt());
        assertTrue(r.get("message").getAsString().contains("SHA-256 mismatch"), r.toString());

        id = control.command(A, "run", "\"probe\":\"nosuch\",\"duration\":\"1s\"");
        assertEquals(404, reply(id).get("code").getAsInt());
        // The one run-request shape (a plan cell's), read by rtbox.core's RunRequests: the path named.
        id = control.command(A, "run", "\"probe\":\"timer\",\"duration\":\"1s\",\"parameters\":{\"interval_us\":\"x\"}");
        r = reply(id);
        assertEquals(400, r.get("code").getAsInt());
        assertEquals("$.parameters.interval_us: expected a whole number, found \"x\"", r.get("message").getAsString(),
                r.toString());
        id = control.command(A, "run", "\"probe\":\"timer\",\"duraton\":\"1s\"");
        assertTrue(reply(id).get("message").getAsString().startsWith("$.duraton: unknown key"));
        id = control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duraton\":\"1s\"}");
        assertTrue(reply(id).get("message").getAsString().startsWith("$.parameters.duraton: unknown key"));

        // Still serving, and the retained command was never answered.
        id = control.command(A, "status", "");
        r = reply(id);
        assertEquals(200, r.get("code").getAsInt());
        assertNull(control.reply(A, stale, 100), "a retained command was executed");
        control.client.publish("rtbox/v1/down/a1/cmd/status", new byte[0], 1, true);
    }

    @Test
    void repeatIsAnsweredNotExecutedAndOneRunAtATime() throws Exception {
        start();
        String id = UUID.randomUUID().toString();
        String cmd = "{\"requestId\":\"" + id + "\",\"expires\":\"" + expires(60) + "\",\"probe\":\"timer\","
                + "\"parameters\":{\"duration\":\"3s\",\"warmup\":\"0\"}}";
        control.send("rtbox/v1/down/a1/cmd/run", cmd);
        JsonObject first = reply(id);
        assertEquals(200, first.get("code").getAsInt(), first.toString());
        // The body's old nesting is still read, for one release, and the reply says so.
        assertEquals(2, first.getAsJsonObject("body").getAsJsonArray("notes").size(), first.toString());
        String run = first.getAsJsonObject("body").get("run").getAsString();
        control.send("rtbox/v1/down/a1/cmd/run", cmd);
        ControlRoom.Received again = control.await(m -> m.topic().endsWith("/reply/" + id)
                && control.all(x -> x.topic().endsWith("/reply/" + id)).size() >= 2, 10_000);
        assertNotNull(again, "the repeat was not answered");
        List<ControlRoom.Received> replies = control.all(m -> m.topic().endsWith("/reply/" + id));
        assertEquals(replies.get(0).payload(), replies.get(1).payload(), "the repeat got a different answer");

        String other = control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"}");
        JsonObject busy = reply(other);
        assertEquals(409, busy.get("code").getAsInt(), busy.toString());
        assertTrue(busy.get("message").getAsString().contains(run), busy.toString());

        assertNotNull(control.await(m -> m.topic().endsWith("/runs/" + run + "/result"), 30_000));
        // Fixed on purpose: a quiet half second after the result proves no second one comes (absence has no event).
        Thread.sleep(500);
        long results = control.all(m -> m.topic().endsWith("/result")).size();
        assertEquals(1, results, "the repeated run command ran twice");
    }

    /**
     * The request ids answered survive a SIGKILL: a run and an install repeated after the
     * restart get their first replies, byte for byte, and neither runs again.
     */
    @Test
    void aRepeatAfterARestartIsAnsweredNotExecuted() throws Exception {
        start();
        String runId = UUID.randomUUID().toString(), installId = UUID.randomUUID().toString();
        String run = "{\"requestId\":\"" + runId + "\",\"expires\":\"" + expires(300) + "\",\"probe\":\"timer\","
                + "\"parameters\":{\"duration\":\"1s\",\"warmup\":\"0\"}}";
        byte[] jar = fixtureJar();
        String install = "{\"requestId\":\"" + installId + "\",\"expires\":\"" + expires(300) + "\",\"data\":\""
                + Base64.getEncoder().encodeToString(jar) + "\",\"sha256\":\""
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar)) + "\"}";
        control.send("rtbox/v1/down/a1/cmd/run", run);
        JsonObject first = reply(runId);
        assertEquals(200, first.get("code").getAsInt(), first.toString());
        String runRun = first.getAsJsonObject("body").get("run").getAsString();
        assertNotNull(control.await(m -> m.topic().endsWith("/runs/" + runRun + "/result"), 30_000));
        control.send("rtbox/v1/down/a1/cmd/install", install);
        assertEquals(200, reply(installId).get("code").getAsInt());

        Await.killed(rtbox.pid());
        int online = control.all(m -> m.topic().equals("rtbox/v1/up/a1/status") && m.payload().contains("\"online\""))
                .size();
        rtbox.start("serve");
        assertNotNull(control.await(m -> control.all(x -> x.topic().equals("rtbox/v1/up/a1/status")
                && x.payload().contains("\"online\"")).size() > online, 30_000), "not back: " + rtbox.err);

        control.send("rtbox/v1/down/a1/cmd/run", run);
        control.send("rtbox/v1/down/a1/cmd/install", install);
        for (String id : List.of(runId, installId)) {
            assertNotNull(control.await(m -> control.all(x -> x.topic().endsWith("/reply/" + id)).size() >= 2, 15_000),
                    "the repeat of " + id + " was not answered; stderr: " + rtbox.err);
            List<ControlRoom.Received> replies = control.all(m -> m.topic().endsWith("/reply/" + id));
            assertEquals(replies.get(0).payload(), replies.get(1).payload(), "the repeat got a different answer");
        }
        // Fixed on purpose: a run repeated by mistake would publish its result within 2 s (1 s run, no warm-up);
        // that none comes in that quiet time is what is checked.
        Thread.sleep(2000);
        assertEquals(1, control.all(m -> m.topic().endsWith("/result")).size(), "the repeated run ran again");
        JsonObject bundles = reply(control.command(A, "bundles", ""));
        assertEquals(1, bundles.getAsJsonObject("body").getAsJsonArray("bundles").asList().stream()
                .filter(b -> b.toString().contains("rtbox.test.mqttfixture")).count(), bundles.toString());
        assertTrue(Files.readString(home.resolve("data/mqtt/requests.log")).contains(" D " + installId + " "));
    }

    @Test
    void stopEndsTheRunWithAnIncompleteResult() throws Exception {
        start();
        String id = control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"60s\",\"warmup\":\"0\"}");
        String run = reply(id).getAsJsonObject("body").get("run").getAsString();
        // Fixed on purpose: 1.5 s of measuring, so that the stopped result has samples; nothing says "measuring"
        // sooner (progress comes at each tenth of the run: 6 s).
        Thread.sleep(1500);
        // The measuring chain's self-test never runs beside a run: it would disturb the run and be disturbed by it.
        JsonObject busy = reply(control.command(A, "selftest", ""));
        assertEquals(409, busy.get("code").getAsInt(), busy.toString());
        assertTrue(busy.get("message").getAsString().contains("is under way"), busy.toString());
        JsonObject r = reply(control.command(A, "stop", "\"run\":\"" + run + "\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        ControlRoom.Received result = control.await(m -> m.topic().endsWith("/runs/" + run + "/result"), 15_000);
        assertNotNull(result, "no result after stop");
        assertTrue(!result.json().get("complete").getAsBoolean(), result.payload().substring(0, 300));
        // Once the stopped run has ended (its result is out; its slot frees a moment after), nothing is left to stop.
        Await.until(10_000, () -> "stop still finds something to stop after the result",
                () -> reply(control.command(A, "stop", "")).get("code").getAsInt() == 409);
        // Idle again: the self-test runs (1 s: 10 stalls of 2 ms injected) and answers with what it found; the
        // readiness check (disk, outbox, probes) answers under its own verb.
        JsonObject st = reply(control.command(A, "selftest", "\"duration_s\":1"));
        JsonObject figures = st.getAsJsonObject("body");
        assertEquals(200, st.get("code").getAsInt(), st.toString());
        assertEquals(10, figures.get("expected").getAsInt(), st.toString());
        assertTrue(Math.abs(figures.get("found").getAsInt() - 10) <= 2, st.toString());
        assertEquals(2000, figures.get("injected_us").getAsInt(), st.toString());
        assertEquals("workload: disturber", figures.get("cause").getAsString(), st.toString());
        assertEquals(figures.get("median_us").getAsInt() - 2000, figures.get("error_us").getAsInt(), st.toString());
        JsonObject bad = reply(control.command(A, "selftest", "\"duration_s\":600"));
        assertEquals(400, bad.get("code").getAsInt(), bad.toString());
        assertTrue(bad.get("message").getAsString().startsWith("$.duration_s: 600 is out of range: use 1 to 60"), bad.toString());
        JsonObject ready = reply(control.command(A, "readiness", ""));
        assertEquals(200, ready.get("code").getAsInt(), ready.toString());
        // The next boot's kernel (issue 35): this machine is not the rtbox image (no /boot/syslinux.cfg with its
        // entries), which the firmware verb says rather than writing anything; an entry in the wrong type is 400.
        JsonObject fw = reply(control.command(A, "firmware", "\"kernel\":\"rt\""));
        assertEquals(404, fw.get("code").getAsInt(), fw.toString());
        assertTrue(fw.get("message").getAsString().startsWith("this machine was not started from the rtbox image: there is"
                + " no /boot/syslinux.cfg"), fw.toString());
        JsonObject fwBad = reply(control.command(A, "firmware", "\"kernel\":\"rt\",\"reboot\":1"));
        assertEquals(400, fwBad.get("code").getAsInt(), fwBad.toString());
        assertTrue(fwBad.get("message").getAsString().startsWith("reboot must be true or false"), fwBad.toString());
        assertTrue(ready.getAsJsonObject("body").has("outbox_messages"), ready.toString());
        // what a plan's start offers as choices (issue 32): this machine's CPUs and disks
        assertTrue(ready.getAsJsonObject("body").get("cpus").getAsString().matches("[0-9][0-9,-]*"), ready.toString());
        assertTrue(ready.getAsJsonObject("body").get("block_devices").isJsonArray(), ready.toString());
    }

    @Test
    void bundlesInstallUninstallAndConfig() throws Exception {
        start();
        JsonObject r = reply(control.command(A, "bundles", ""));
        assertEquals(200, r.get("code").getAsInt());
        assertTrue(r.getAsJsonObject("body").toString().contains("rtbox.mqtt"));
        // Every verb family's component is active on a full appliance, the plan verbs too.
        assertEquals(List.of("bundles", "firmware", "get-config", "install", "plan", "readiness", "results", "run", "selftest", "set-config",
                "status", "stop", "uninstall", "update"), r.getAsJsonObject("body").getAsJsonArray("verbs").asList()
                        .stream().map(e -> e.getAsString()).toList(), r.toString());

        byte[] jar = fixtureJar();
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar));
        r = reply(control.command(A, "install", "\"data\":\"" + Base64.getEncoder().encodeToString(jar)
                + "\",\"sha256\":\"" + sha + "\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertEquals("rtbox.test.mqttfixture", r.getAsJsonObject("body").get("symbolicName").getAsString());
        // The SHA-256 of the bytes as the framework holds them: the installed jar's.
        assertEquals(sha, r.getAsJsonObject("body").get("sha256").getAsString(), r.toString());
        assertEquals(sha, sha256Of(reply(control.command(A, "bundles", "")), "rtbox.test.mqttfixture"));
        // Every bundle has one, the framework's too: each that of the jar rtbox.jar embeds.
        JsonObject all = reply(control.command(A, "bundles", ""));
        for (var e : all.getAsJsonObject("body").getAsJsonArray("bundles")) {
            JsonObject b = e.getAsJsonObject();
            assertTrue(b.has("sha256") && b.get("sha256").getAsString().matches("[0-9a-f]{64}"), b.toString());
        }
        assertEquals(embeddedJarSha256("rtbox.mqtt-"), sha256Of(all, "rtbox.mqtt"));
        assertEquals(embeddedJarSha256("org.apache.felix.framework-"), sha256Of(all, "org.apache.felix.framework"));
        // An update changes the bundle's bytes and its last-modified time: the new hash, not the cached one.
        byte[] next = fixtureJar("1.0.1");
        String nextSha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(next));
        r = reply(control.command(A, "update", "\"bundle\":\"rtbox.test.mqttfixture\",\"data\":\""
                + Base64.getEncoder().encodeToString(next) + "\",\"sha256\":\"" + nextSha + "\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertEquals(nextSha, r.getAsJsonObject("body").get("sha256").getAsString(), r.toString());
        assertEquals(nextSha, sha256Of(reply(control.command(A, "bundles", "")), "rtbox.test.mqttfixture"));
        r = reply(control.command(A, "uninstall", "\"bundle\":\"rtbox.test.mqttfixture\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        r = reply(control.command(A, "uninstall", "\"bundle\":\"rtbox.test.mqttfixture\""));
        assertEquals(404, r.get("code").getAsInt(), r.toString());
        r = reply(control.command(A, "uninstall", "\"bundle\":\"rtbox.mqtt\""));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("cannot be uninstalled remotely"), r.toString());
        // rtbox.mqtt and rtbox.cli import rtbox.plan optionally, but rtbox serve (rtbox.cli) is wired to it: a
        // refresh would end the serving command, so it is still a lifeline (WithoutPlanIT runs without it).
        r = reply(control.command(A, "uninstall", "\"bundle\":\"rtbox.plan\""));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("cannot be uninstalled remotely"), r.toString());

        r = reply(control.command(A, "get-config", "\"pid\":\"rtbox.mqtt\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        JsonObject props = r.getAsJsonObject("body").getAsJsonObject("properties");
        assertEquals("a1", props.get("appliance").getAsString());
        assertEquals("********", props.get("password").getAsString());
        assertEquals(404, reply(control.command(A, "get-config", "\"pid\":\"no.such.pid\"")).get("code").getAsInt());
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
    }

    private void start() throws Exception {
        broker = new Mosquitto(brokerDir, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "not online: " + rtbox.err);
    }

    private static String sha256Of(JsonObject bundlesReply, String symbolicName) {
        for (var e : bundlesReply.getAsJsonObject("body").getAsJsonArray("bundles")) {
            JsonObject b = e.getAsJsonObject();
            if (symbolicName.equals(b.get("symbolicName").getAsString())) {
                return b.has("sha256") ? b.get("sha256").getAsString() : null;
            }
        }
        throw new AssertionError(symbolicName + " is not in " + bundlesReply);
    }

    /** The SHA-256 of the bundle jar rtbox.jar embeds (jar/NAME...jar), which the launcher installs. */
    private static String embeddedJarSha256(String namePrefix) throws Exception {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(System.getProperty("rtbox.jar"))) {
            var entry = j.stream().filter(x -> x.getName().startsWith("jar/" + namePrefix)
                    && x.getName().endsWith(".jar")).findFirst().orElseThrow();
            try (var in = j.getInputStream(entry)) {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
            }
        }
    }

    /** A bundle with a manifest only: enough for the framework to install, start and remove it. */
    static byte[] fixtureJar() throws IOException {
        return fixtureJar("1.0.0");
    }

    static byte[] fixtureJar(String version) throws IOException {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "rtbox.test.mqttfixture");
        a.putValue("Bundle-Version", version);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream j = new JarOutputStream(out, mf)) {
            // manifest only
        }
        return out.toByteArray();
    }
}
