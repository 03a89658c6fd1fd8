package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Issue 17's attacks on a real appliance over a real mosquitto: what broke it before must
 * now be answered, and the appliance must keep serving.
 */
class MqttHardeningIT extends MqttFixture {
    static final String A = MqttIT.A;

    /** A message's start, for an assertion's text (a result carries a 10000-bucket histogram). */
    private static String brief(String payload) {
        return payload.length() <= 600 ? payload : payload.substring(0, 600) + "...";
    }

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, 15_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    /**
     * A 12 MB command (OutOfMemoryError in Paho's thread before: never acknowledged,
     * redelivered at every reconnect) is answered 413 naming its size and the limit, and
     * acknowledged: after a restart of the appliance it does not come back. A 1 MiB probe
     * name is answered with the name cut, and requests.log does not take a copy of it.
     */
    @Test
    void aHugeCommandIsAnswered413AndNeverDeliveredAgain() throws Exception {
        serve(false);
        String id = UUID.randomUUID().toString();
        byte[] big = new byte[12 * 1024 * 1024];
        Arrays.fill(big, (byte) 'x');
        byte[] head = ("{\"requestId\":\"" + id + "\",\"expires\":\"" + Instant.now().plusSeconds(60)
                + "\",\"pad\":\"").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(head, 0, big, 0, head.length);
        big[big.length - 2] = '"';
        big[big.length - 1] = '}';
        control.client.publish("rtbox/v1/down/a1/cmd/status", big, 1, false);
        JsonObject r = reply(id);
        assertEquals(413, r.get("code").getAsInt(), r.toString());
        String m = r.get("message").getAsString();
        assertTrue(m.contains(big.length + " bytes") && m.contains("at most 2097152"), m);

        String probe = "p".repeat(1 << 20);
        String id2 = control.command(A, "run", "\"probe\":\"" + probe + "\",\"parameters\":{\"duration\":\"1s\"}");
        JsonObject r2 = reply(id2);
        assertEquals(404, r2.get("code").getAsInt());
        assertTrue(r2.toString().length() < 4096, "reply of " + r2.toString().length() + " characters");
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
        assertTrue(Files.size(home.resolve("data/mqtt/requests.log")) < 64 * 1024,
                "requests.log: " + Files.size(home.resolve("data/mqtt/requests.log")) + " bytes");

        // Restarted: the persistent session must not hold the big command any more.
        rtbox.close();
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        awaitOnline();
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
        assertEquals(1, control.all(x -> x.topic().endsWith("/reply/" + id)).size(),
                "the big command was delivered again");
        assertTrue(String.join("\n", rtbox.err).indexOf("OutOfMemoryError") < 0, String.join("\n", rtbox.err));
    }

    /**
     * Parameters that wedged the appliance or gave a PASS of nothing: duplicate CPUs with a
     * million-bucket histogram (OutOfMemoryError on the run thread, busy for good), a
     * 285-year duration, and "1ns" with max_latency_us (PASS with 0 samples). Each is
     * refused naming the field, or judged INCONCLUSIVE, and the next run runs.
     */
    @Test
    void runsThatCannotBeMeasuredAreRefusedOrInconclusiveNeverPass() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\","
                + "\"cpus\":[0,1,0,1,0,1,0,1],\"histogram_us\":1000000}"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("CPU 0 is given twice"), r.toString());
        r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\","
                + "\"cpus\":[0,1],\"histogram_us\":1000000}"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("the run's histograms need 15625 KiB"), r.toString());
        r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"150000000m\"}"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("longest run of 7 days"), r.toString());

        r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1ns\","
                + "\"warmup\":\"0\"},\"thresholds\":{\"max_latency_us\":10000}"));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        String run = r.getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                30_000);
        assertNotNull(result, "no result; stderr: " + rtbox.err);
        assertEquals("INCONCLUSIVE", result.json().get("verdict").getAsString(), result.payload());
        assertTrue(result.payload().contains("took no samples"), result.payload());
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
    }

    /**
     * Damaged and foreign outbox files (0 and 2 bytes, a topic with '#', a non-numeric
     * name: before, a stray junk.msg stopped MQTT from starting and a short file stopped
     * all sending while the status said online) are set aside as .bad with a log line
     * naming each, and what else is queued is sent. Damage found at start is told at start:
     * a message whose checksum fails and a torn result-journal line are named by the log and
     * by the retained status's {@code damaged}, before anything was sent or asked.
     */
    @Test
    void badOutboxFilesAreSetAsideAndSendingGoesOn() throws Exception {
        broker = new Mosquitto(brokerDir, false, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        java.nio.file.Path outbox = home.resolve("data/mqtt/outbox");
        Files.createDirectories(outbox);
        Files.write(outbox.resolve("0000000000000001.msg"), new byte[0]);
        Files.write(outbox.resolve("0000000000000002.msg"), new byte[] {0, 1});
        Files.write(outbox.resolve("0000000000000003.msg"), message("rtbox/v1/up/a1/#", "{}"));
        Files.write(outbox.resolve("0000000000000004.msg"), message("rtbox/v1/up/a1/reply/left-over",
                "{\"left\":\"over\"}"));
        Files.write(outbox.resolve("junk.msg"), "junk".getBytes(StandardCharsets.UTF_8));
        // A message of the current format (magic RTB2, CRC-32) with one bit flipped in its payload.
        byte[] flipped = checksummed("rtbox/v1/up/a1/reply/flipped", "{\"bit\":\"flipped\"}");
        flipped[flipped.length - 3] ^= 0x04;
        Files.write(outbox.resolve("0000000000000005.msg"), flipped);
        // The result journal with a torn line (a write a crash cut short) before a whole one.
        Files.createDirectories(home.resolve("data"));
        Files.writeString(home.resolve("data/results.journal"), "0badc0de 99 {\"type\":\"pl\n");
        rtbox.start("serve");
        ControlRoom.Received status = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.payload().contains("results.journal") && m.payload().contains("0000000000000005.msg"), 30_000);
        assertNotNull(status, "no status naming the damage; statuses: " + control.all(m -> m.topic().equals(
                "rtbox/v1/up/a1/status")).stream().map(ControlRoom.Received::payload).toList() + "; stderr: " + rtbox.err);
        String damaged = status.json().getAsJsonArray("damaged").toString();
        for (String named : new String[] {"0000000000000001.msg", "0000000000000002.msg", "0000000000000003.msg",
                "0000000000000005.msg", "junk.msg", "checksum", "results.journal line 1"}) {
            assertTrue(damaged.contains(named), "the status's damaged does not name " + named + ": " + damaged);
        }
        assertTrue(!damaged.contains("0000000000000004.msg"), "a good message named damaged: " + damaged);
        assertTrue(String.join("\n", rtbox.err).contains("results.journal"), "no log line names the journal: "
                + rtbox.err);
        awaitOnline();
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/reply/left-over"), 15_000),
                "the good message was not sent; stderr: " + rtbox.err);
        assertTrue(control.all(m -> m.topic().endsWith("/reply/flipped")).isEmpty(), "a bit-flipped message was sent");
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
        String err = String.join("\n", rtbox.err);
        for (String bad : new String[] {"0000000000000001.msg", "0000000000000002.msg", "0000000000000003.msg",
                "0000000000000005.msg", "junk.msg"}) {
            assertTrue(Files.exists(outbox.resolve(bad + ".bad")), bad + " not set aside");
            assertTrue(err.contains(bad), "no log line names " + bad + ": " + err);
        }
    }

    /** An outbox file of the current format: magic RTB2, CRC-32 of the rest, topic length, topic, payload. */
    static byte[] checksummed(String topic, String payload) {
        byte[] rest = message(topic, payload);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(rest);
        return java.nio.ByteBuffer.allocate(8 + rest.length).putInt(0x52544232).putInt((int) crc.getValue()).put(rest)
                .array();
    }

    /** An outbox file of the first format: topic length, topic, payload. */
    private static byte[] message(String topic, String payload) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        byte[] p = payload.getBytes(StandardCharsets.UTF_8);
        return java.nio.ByteBuffer.allocate(4 + t.length + p.length).putInt(t.length).put(t).put(p).array();
    }

    /**
     * A plain jar (no Bundle-SymbolicName) was installed, or replaced rtbox.workload.pipe;
     * a file: url with a wrong hash revealed the file's SHA-256. Now: 400, nothing installed
     * or replaced, no hash of a file the sender does not have.
     */
    @Test
    void aPlainJarIsNotABundleAndAFilesHashIsNotRevealed() throws Exception {
        serve(false);
        java.util.jar.Manifest mf = new java.util.jar.Manifest();
        mf.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.jar.JarOutputStream j = new java.util.jar.JarOutputStream(out, mf)) {
            j.putNextEntry(new java.util.jar.JarEntry("x.txt"));
            j.write("plain".getBytes(StandardCharsets.UTF_8));
        }
        byte[] jar = out.toByteArray();
        String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(jar));
        String data = "\"data\":\"" + java.util.Base64.getEncoder().encodeToString(jar) + "\",\"sha256\":\"" + sha + "\"";
        JsonObject r = reply(control.command(A, "install", data));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("no Bundle-SymbolicName"), r.toString());
        r = reply(control.command(A, "update", "\"bundle\":\"rtbox.workload.pipe\"," + data));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("no Bundle-SymbolicName"), r.toString());

        java.nio.file.Path secret = home.resolve("secret.txt");
        Files.writeString(secret, "secret");
        String secretSha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("secret".getBytes(StandardCharsets.UTF_8)));
        r = reply(control.command(A, "install", "\"url\":\"" + secret.toUri() + "\",\"sha256\":\"" + "0".repeat(64)
                + "\""));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(!r.toString().contains(secretSha), r.toString());
    }

    /**
     * A stop during the warm-up gave ERROR with a NullPointerException (a measuring thread that
     * saw the stop at its start left no result), and a plan stopped that way said complete. Now
     * the run ends ABORTED with its result at once, the plan says stopped, and the next run runs.
     */
    @Test
    void aStopDuringTheWarmUpAbortsTheRunAndStopsThePlan() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"5s\","
                + "\"warmup\":\"30s\"},\"thresholds\":{\"max_latency_us\":100000}"));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        String run = r.getAsJsonObject("body").get("run").getAsString();
        // Fixed on purpose: a stop 1.5 s into the 30 s warm-up, which publishes nothing to wait on.
        Thread.sleep(1500);
        assertEquals(200, reply(control.command(A, "stop", "")).get("code").getAsInt());
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                10_000);
        assertNotNull(result, "no result within 10 s of the stop (a 30 s warm-up); stderr: " + rtbox.err);
        assertEquals("ABORTED", result.json().get("verdict").getAsString(), brief(result.payload()));
        assertTrue(result.payload().contains("before its first sample"), brief(result.payload()));
        assertTrue(!result.payload().contains("NullPointerException"), brief(result.payload()));

        String plan = "{\"rtbox_plan\":1,\"name\":\"warm\",\"probe\":\"timer\",\"duration\":\"5s\",\"warmup\":\"30s\","
                + "\"thresholds\":{\"max_us\":100000},\"cells\":[{\"name\":\"a\"},{\"name\":\"b\"}]}";
        r = reply(control.command(A, "plan", "\"plan\":" + plan));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        String planRun = r.getAsJsonObject("body").get("run").getAsString();
        Thread.sleep(1500); // fixed: as above, 1.5 s into the first cell's 30 s warm-up, which publishes nothing
        assertEquals(200, reply(control.command(A, "stop", "")).get("code").getAsInt());
        ControlRoom.Received planResult = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + planRun
                + "/result"), 15_000);
        assertNotNull(planResult, "no plan result within 15 s of the stop; stderr: " + rtbox.err);
        assertEquals("stopped", planResult.json().get("state").getAsString(), brief(planResult.payload()));
        assertTrue(!planResult.payload().contains("NullPointerException"), brief(planResult.payload()));

        r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"}"));
        assertEquals(200, r.get("code").getAsInt(), "the next run: " + r);
    }

    /**
     * {@code pipe:mode=zzz} was accepted and the run ended ERROR after its warm-up: a load's
     * parameters are checked before the run starts (each workload's own check), 400 naming the
     * parameter, nothing started; the same in a plan. A 1 MB requestId is not copied whole
     * into the log.
     */
    @Test
    void badLoadParametersAreRefusedUpFrontAndAHugeRequestIdIsNotLogged() throws Exception {
        serve(false);
        JsonObject r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},"
                + "\"loads\":[\"pipe:mode=zzz\"]"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("mode"), r.toString());
        assertTrue(r.get("message").getAsString().contains("zzz"), r.toString());
        r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},"
                + "\"loads\":[\"fairness:workers=0\"]"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("workers"), r.toString());
        r = reply(control.command(A, "plan", "\"plan\":{\"rtbox_plan\":1,\"name\":\"p\",\"probe\":\"timer\","
                + "\"duration\":\"1s\",\"cells\":[{\"name\":\"a\",\"loads\":[\"pipe:mode=zzz\"]}]}"));
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("mode"), r.toString());
        assertEquals(0, control.all(m -> m.topic().contains("/runs/")).size(), "a run started");

        String huge = "i".repeat(1 << 20);
        control.send("rtbox/v1/down/a1/cmd/status", "{\"requestId\":\"" + huge + "\",\"expires\":\""
                + Instant.now().plusSeconds(60) + "\"}");
        ControlRoom.Received none = control.await(m -> m.topic().equals("rtbox/v1/up/a1/reply/none"), 15_000);
        assertNotNull(none, "no reply to a command with a 1 MB requestId; stderr: " + rtbox.err);
        assertEquals(400, none.json().get("code").getAsInt(), none.payload());
        assertTrue(none.payload().length() < 4096, "reply of " + none.payload().length() + " characters");
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
        long longest = rtbox.err.stream().mapToLong(String::length).max().orElse(0);
        assertTrue(longest < 4096, "a log line of " + longest + " characters");
        assertTrue(Files.size(home.resolve("data/mqtt/requests.log")) < 64 * 1024);
    }

    /**
     * set-config of rtbox.mqtt with an unreachable broker answered 200 and left the appliance
     * offline for good. Now the new settings are tried: a change that connects is answered 200
     * once connected; one that does not connect within configTrialSeconds is rolled back, the
     * appliance comes back online on its broker and the reply says so, naming the key.
     */
    @Test
    void aSetConfigThatCutsTheLineIsRolledBack() throws Exception {
        serve(false);
        JsonObject r = control.reply(A, control.command(A, "set-config", "\"pid\":\"rtbox.mqtt\","
                + "\"properties\":{\"configTrialSeconds\":6}"), 60_000).json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertTrue(r.get("message").getAsString().contains("connected with the new settings"), r.toString());

        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        String id = control.command(A, "set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"brokers\":"
                + "\"tcp://127.0.0.1:" + closed + "\"}");
        ControlRoom.Received answer = control.reply(A, id, 90_000);
        assertNotNull(answer, "no reply to a set-config of an unreachable broker; stderr: " + rtbox.err);
        r = answer.json();
        assertEquals(400, r.get("code").getAsInt(), r.toString());
        String m = r.get("message").getAsString();
        assertTrue(m.contains("rolled back") && m.contains("brokers") && m.contains(broker.uri()), m);
        assertTrue(System.nanoTime() - t0 > 5_000_000_000L, "answered before the trial's 6 s");
        assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
        r = reply(control.command(A, "get-config", "\"pid\":\"rtbox.mqtt\""));
        assertEquals(broker.uri(), r.getAsJsonObject("body").getAsJsonObject("properties").get("brokers")
                .getAsString(), r.toString());
        assertTrue(!Files.exists(home.resolve("data/mqtt/config.trial")), "the trial file is left");
    }

    /**
     * A full disk: plans were accepted and run, but replies and run messages that could not be
     * queued were dropped ("cannot queue message 3") and never sent, and .tmp files were left.
     * Now, on a 3 MiB tmpfs as the appliance's data folder: a run without room for its messages
     * is refused 507 naming the free space; a run whose result finds the disk full keeps it in
     * memory and sends it once there is room, every sequence number once; no .tmp is left.
     */
    @Test
    void aFullDiskRefusesUpFrontAndLosesNothing() throws Exception {
        java.nio.file.Path data = java.nio.file.Files.createTempDirectory("rtbox-tmpfs-");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", data.toString())
                .redirectErrorStream(true).start();
        String mountOut = new String(mount.getInputStream().readAllBytes());
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor() == 0,
                "cannot mount a tmpfs here (needs root): " + mountOut);
        java.nio.file.Path fill = data.resolve("fill");
        try {
            broker = new Mosquitto(brokerDir, false, A, "b1");
            control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
            rtbox = new Rtbox(home);
            MqttIT.configure(rtbox, broker, A);
            Files.writeString(home.resolve("etc/rtbox.mqtt.cfg"), "dataDir=" + data + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
            rtbox.start("serve");
            awaitOnline();

            fillLeaving(fill, 600 * 1024);
            JsonObject r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"}"));
            assertEquals(507, r.get("code").getAsInt(), r.toString());
            assertTrue(r.get("message").getAsString().contains("bytes free"), r.toString());
            r = reply(control.command(A, "plan", "\"plan\":" + MqttPlanIT.plan("p", "1s", "a", "b")));
            assertEquals(507, r.get("code").getAsInt(), r.toString());
            Files.delete(fill);

            r = reply(control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"3s\","
                    + "\"warmup\":\"0\"}"));
            assertEquals(200, r.get("code").getAsInt(), r.toString());
            String run = r.getAsJsonObject("body").get("run").getAsString();
            // The disk fills while the run measures (its first progress says so).
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/progress"), 10_000),
                    "the run never got under way; stderr: " + rtbox.err);
            fillLeaving(fill, 0);
            // Fixed on purpose: the 3 s run ends within 5 s; that no result is stored on the full disk is the check.
            Thread.sleep(5000);
            assertNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"), 100),
                    "a result was stored on a full disk?");
            String status = control.command(A, "status", "");
            Files.delete(fill);
            ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run
                    + "/result"), 20_000);
            assertNotNull(result, "the result kept in memory was not sent once there was room; stderr: " + rtbox.err);
            assertGapless(run, result.json().get("sequence").getAsLong());
            assertNotNull(control.reply(A, status, 20_000), "the status command sent on a full disk got no reply");
            assertEquals(200, reply(control.command(A, "status", "")).get("code").getAsInt());
            try (java.util.stream.Stream<java.nio.file.Path> all = Files.walk(data)) {
                java.util.List<java.nio.file.Path> tmp = all.filter(f -> f.toString().endsWith(".tmp")).toList();
                assertTrue(tmp.isEmpty(), "left: " + tmp);
            }
            assertTrue(String.join("\n", rtbox.err).contains("never dropped"), String.join("\n", rtbox.err));
        } finally {
            if (rtbox != null) {
                rtbox.close();
                rtbox = null;
            }
            new ProcessBuilder("umount", data.toString()).inheritIO().start().waitFor();
            Files.deleteIfExists(data);
        }
    }

    /** Writes {@code fill} until the file system has about {@code leave} bytes left (0: full). */
    static void fillLeaving(java.nio.file.Path fill, long leave) throws Exception {
        java.nio.file.FileStore store = Files.getFileStore(fill.getParent());
        byte[] block = new byte[4096];
        try (java.io.OutputStream out = Files.newOutputStream(fill, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND)) {
            while (store.getUsableSpace() > leave) {
                out.write(block, 0, (int) Math.min(block.length, Math.max(1, store.getUsableSpace() - leave)));
                out.flush();
            }
        } catch (java.io.IOException full) {
            // no space left: what was asked for
        }
    }
}
