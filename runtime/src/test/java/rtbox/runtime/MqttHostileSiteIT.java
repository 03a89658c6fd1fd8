package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Issue 31's adversarial round, the appliance's side, on a real appliance over a real
 * mosquitto: what took the appliance off the network or stopped its sending before must now
 * be refused or set aside, and the appliance must keep answering.
 */
class MqttHostileSiteIT extends MqttFixture {
    static final String A = MqttIT.A;

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(A, requestId, 20_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    private void assertAnswers() throws Exception {
        JsonObject s = reply(control.command(A, "status", ""));
        assertEquals(200, s.get("code").getAsInt(), s.toString());
    }

    /**
     * {@code set-config rtbox.mqtt {"appliance":"rel9"}} connected (mosquitto takes the client,
     * its ACL silently drops what it publishes), so nothing rolled back and the appliance was
     * out of reach for good; any PID was written, {@code ../../..} and filter syntax included.
     * Now the identity is not settable over MQTT, and only rtbox's own described PIDs and
     * properties are.
     */
    @Test
    void setConfigTouchesOnlyRtboxsOwnSettingsAndNeverTheIdentity() throws Exception {
        serve(false);
        String[][] refused = {
            {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"appliance\":\"rel9\"}", "400", "appliance"},
            {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"username\":\"rel9\"}", "400", "username"},
            {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"nosuch\":1}", "400", "nosuch"},
            {"\"pid\":\"../../..\",\"properties\":{\"k\":1}", "404", "../../.."},
            {"\"pid\":\"a)(b=*\",\"properties\":{\"k\":1}", "404", "a)(b=*"},
            {"\"pid\":\"org.apache.felix.fileinstall\",\"properties\":{\"k\":1}", "404", "org.apache.felix.fileinstall"},
            {"\"pid\":\"rtbox.nosuch\",\"properties\":{\"k\":1}", "404", "rtbox.nosuch"},
        };
        for (String[] c : refused) {
            JsonObject r = reply(control.command(A, "set-config", c[0]));
            assertEquals(Integer.parseInt(c[1]), r.get("code").getAsInt(), c[0] + ": " + r);
            String m = r.get("message").getAsString();
            assertTrue(m.contains(c[2]), c[0] + ": the message does not name " + c[2] + ": " + m);
        }
        JsonObject r = reply(control.command(A, "get-config", "\"pid\":\"../../..\""));
        assertEquals(404, r.get("code").getAsInt(), r.toString());
        r = reply(control.command(A, "get-config", "\"pid\":\"rtbox.mqtt\""));
        assertEquals(A, r.getAsJsonObject("body").getAsJsonObject("properties").get("appliance").getAsString());
        // One of rtbox's own, with a property its description names: set (a workload's, no trial).
        r = reply(control.command(A, "set-config", "\"pid\":\"rtbox.workload.pipe\",\"properties\":{\"count\":3}"));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        assertAnswers();
        assertTrue(control.all(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("offline")).isEmpty(), "a1 went offline");
    }

    /**
     * A message the broker refuses (here one over the shipped configuration's max_packet_size:
     * mosquitto drops the connection at its publish) was tried about three times a second for
     * good, and nothing behind it went out. Now it goes to the dead-letter folder, named in the
     * status, and the message behind it is delivered.
     */
    @Test
    void aMessageTheBrokerRefusesGoesToTheDeadLetterFolder() throws Exception {
        broker = Mosquitto.site(brokerDir, A);
        control = new ControlRoom(broker.controlUri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        Path outbox = home.resolve("data/mqtt/outbox");
        Files.createDirectories(outbox);
        Files.write(outbox.resolve("0000000000000001.msg"), MqttHardeningIT.checksummed("rtbox/v1/up/a1/reply/huge",
                "{\"pad\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}"));
        Files.write(outbox.resolve("0000000000000002.msg"), MqttHardeningIT.checksummed(
                "rtbox/v1/up/a1/reply/behind", "{\"behind\":true}"));
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/reply/behind"), 60_000),
                "the message behind the refused one was not sent; stderr: " + rtbox.err);
        Path dead = home.resolve("data/mqtt/dead-letter/0000000000000001.msg");
        assertTrue(Files.exists(dead), "not in the dead-letter folder: " + dead);
        ControlRoom.Received status = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.payload().contains("dead-letter"), 30_000);
        assertNotNull(status, "no status names the dead-letter folder");
        assertTrue(status.payload().contains("0000000000000001.msg"), status.payload());
        long drops = broker.log().lines().filter(l -> l.contains("Client " + A + " disconnected")
                || l.contains("Client " + A + " closed its connection")).count();
        assertTrue(drops <= 10, drops + " disconnects of a1:\n" + broker.log());
        assertAnswers();
    }

    /**
     * Outbox entries that are no readable regular file (a directory, a FIFO, a symbolic link to
     * /dev/zero) stopped MQTT at every start ("Is a directory", a hang, an OutOfMemoryError).
     * Now each is set aside as .bad and named like the other bad entries; MQTT starts and the
     * good message goes.
     */
    @Test
    void outboxEntriesThatAreNoFileAreSetAsideAndMqttStarts() throws Exception {
        broker = new Mosquitto(brokerDir, false, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        Path outbox = home.resolve("data/mqtt/outbox");
        Files.createDirectories(outbox.resolve("0000000000000001.msg"));
        Process fifo = new ProcessBuilder("mkfifo", outbox.resolve("0000000000000002.msg").toString()).start();
        assertEquals(0, fifo.waitFor());
        Files.createSymbolicLink(outbox.resolve("0000000000000003.msg"), Path.of("/dev/zero"));
        Files.createDirectories(outbox.resolve("0000000000000005.tmp"));
        Files.write(outbox.resolve("0000000000000004.msg"), MqttHardeningIT.checksummed("rtbox/v1/up/a1/reply/good",
                "{\"good\":true}"));
        // The journals: the request log a FIFO, the result journal a link to /dev/zero, the run record a folder.
        Process fifo2 = new ProcessBuilder("mkfifo", home.resolve("data/mqtt/requests.log").toString()).start();
        assertEquals(0, fifo2.waitFor());
        Files.createSymbolicLink(home.resolve("data/results.journal"), Path.of("/dev/zero"));
        Files.createDirectories(home.resolve("data/mqtt/run.active"));
        rtbox.start("serve");
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/reply/good"), 30_000),
                "the good message was not sent; stderr: " + rtbox.err);
        ControlRoom.Received status = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.payload().contains("0000000000000003.msg"), 30_000);
        assertNotNull(status, "no status names the entries; stderr: " + rtbox.err);
        String damaged = status.json().getAsJsonArray("damaged").toString();
        for (String named : new String[] {"0000000000000001.msg", "0000000000000002.msg", "0000000000000003.msg",
                "0000000000000005.tmp", "directory", "symbolic link", "FIFO", "requests.log", "results.journal"}) {
            assertTrue(damaged.contains(named), "the status's damaged does not name " + named + ": " + damaged);
        }
        for (String bad : new String[] {"0000000000000001.msg", "0000000000000002.msg", "0000000000000003.msg"}) {
            assertTrue(Files.exists(outbox.resolve(bad + ".bad"), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    bad + " not set aside");
        }
        for (String bad : new String[] {"mqtt/requests.log", "results.journal", "mqtt/run.active"}) {
            assertTrue(Files.exists(home.resolve("data/" + bad + ".bad"), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    bad + " not set aside");
        }
        assertTrue(String.join("\n", rtbox.err).indexOf("OutOfMemoryError") < 0, "an OutOfMemoryError");
        assertAnswers();
    }

    /**
     * One uninstall (org.osgi.service.log, org.apache.felix.metatype) ended the process
     * without a line, and a command queued behind it was never answered. Now every installed
     * bundle is uninstalled in turn, each with a status queued right behind: each uninstall is
     * refused or done, and the status behind it is answered.
     */
    @Test
    void uninstallingAnyBundleLeavesTheApplianceAnswering() throws Exception {
        serve(false);
        JsonObject list = reply(control.command(A, "bundles", ""));
        List<String> names = new ArrayList<>();
        for (JsonElement b : list.getAsJsonObject("body").getAsJsonArray("bundles")) {
            names.add(b.getAsJsonObject().get("symbolicName").getAsString());
        }
        assertTrue(names.size() > 20, names.toString());
        List<String> removed = new ArrayList<>(), kept = new ArrayList<>();
        long t0 = System.nanoTime();
        for (String name : names) {
            String u = control.command(A, "uninstall", "\"bundle\":\"" + name + "\"");
            String s = control.command(A, "status", "");
            JsonObject ur = reply(u);
            int code = ur.get("code").getAsInt();
            assertTrue(code == 200 || code == 400, name + ": " + ur);
            (code == 200 ? removed : kept).add(name);
            JsonObject sr = reply(s);
            assertEquals(200, sr.get("code").getAsInt(), "status behind the uninstall of " + name + ": " + sr);
        }
        System.out.printf("MqttHostileSiteIT: %d bundles, each uninstalled in turn in %.1f s: %d removed %s, %d refused"
                + " as the appliance's lifeline %s%n", names.size(), (System.nanoTime() - t0) / 1e9, removed.size(),
                removed, kept.size(), kept);
        for (String needed : new String[] {"org.osgi.service.log", "org.apache.felix.metatype", "org.apache.felix.scr",
                "org.apache.felix.configadmin", "com.google.gson", "org.eclipse.paho.client.mqttv3", "rtbox.mqtt"}) {
            assertTrue(kept.contains(needed), needed + " was uninstalled: removed " + removed);
        }
        assertAnswers();
        assertTrue(String.join("\n", rtbox.err).indexOf("Exception in thread") < 0, String.join("\n", rtbox.err));
    }

    /**
     * {@code install} from a server that trickles (a byte a second) held the command thread:
     * with a 30 s read timeout and no overall deadline, 6 of 6 status commands went unanswered
     * over 92 s. Now the download runs off the command thread with an overall deadline
     * ({@code downloadSeconds}, 8 s here): every status is answered meanwhile, the install is
     * answered 504 when the deadline passes, and no reply carries a Java class's name.
     */
    @Test
    void aTricklingInstallLeavesTheApplianceAnswering() throws Exception {
        broker = new Mosquitto(brokerDir, false, A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        Files.writeString(home.resolve("etc/rtbox.mqtt.cfg"), "downloadSeconds=8\n",
                java.nio.file.StandardOpenOption.APPEND);
        rtbox.start("serve");
        awaitOnline();
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Thread trickle = new Thread(() -> {
                try (java.net.Socket s = server.accept()) {
                    java.io.InputStream in = s.getInputStream();
                    // The request's head, then headers of a response whose body comes a byte a second.
                    byte[] buf = new byte[4096];
                    in.read(buf);
                    java.io.OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.0 200 OK\r\nContent-Type: application/java-archive\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    while (!Thread.currentThread().isInterrupted()) {
                        out.write('P');
                        out.flush();
                        Thread.sleep(1000);
                    }
                } catch (java.io.IOException | InterruptedException e) {
                    // the appliance hung up (its deadline), or the test ended
                }
            }, "trickling-http");
            trickle.setDaemon(true);
            trickle.start();
            long t0 = System.nanoTime();
            String install = control.command(A, "install", "\"url\":\"http://127.0.0.1:" + server.getLocalPort()
                    + "/slow.jar\",\"sha256\":\"" + "0".repeat(64) + "\"");
            long slowest = 0;
            for (int i = 0; i < 5; i++) {
                long s0 = System.nanoTime();
                JsonObject st = reply(control.command(A, "status", ""));
                assertEquals(200, st.get("code").getAsInt(), st.toString());
                slowest = Math.max(slowest, System.nanoTime() - s0);
                Thread.sleep(1000);
            }
            ControlRoom.Received answer = control.reply(A, install, 30_000);
            assertNotNull(answer, "no answer to the install; stderr: " + rtbox.err);
            JsonObject r = answer.json();
            double took = (System.nanoTime() - t0) / 1e9;
            System.out.printf("MqttHostileSiteIT: install from a trickling server answered %d after %.1f s (deadline"
                    + " 8 s); 5 status commands meanwhile, the slowest answered in %.0f ms%n", r.get("code").getAsInt(),
                    took, slowest / 1e6);
            assertEquals(504, r.get("code").getAsInt(), r.toString());
            assertTrue(r.get("message").getAsString().contains("did not end within 8 s"), r.toString());
            assertTrue(took < 20, "answered after " + took + " s");
            trickle.interrupt();
        }
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        for (String url : new String[] {"http://127.0.0.1:" + closed + "/x.jar", "file:///nonexistent/x.jar"}) {
            JsonObject r = reply(control.command(A, "install", "\"url\":\"" + url + "\",\"sha256\":\""
                    + "0".repeat(64) + "\""));
            assertEquals(400, r.get("code").getAsInt(), r.toString());
            String m = r.get("message").getAsString();
            assertTrue(!m.contains("java.") && !m.contains("Exception"), "library text in the reply: " + m);
        }
        assertAnswers();
    }

    /**
     * A disk that filled while a plan's cell measured lost that cell's measurement: its result
     * went out as ERROR, then {@code results} re-sent it as ABORTED "crash or power loss" (two
     * payloads for one sequence number). Now, on a 3 MiB tmpfs holding the result journal and the
     * outbox, filled during the first of two cells and freed 4 s later: the measured cell is kept
     * in memory until there is room, the plan completes, every sequence number arrives once with
     * one payload, {@code results} sends the same, and no message tells of a crash.
     */
    @Test
    void aDiskThatFillsDuringAPlanLosesNoCellAndTellsNoFalseCause() throws Exception {
        Path data = Files.createTempDirectory("rtbox-tmpfs-");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", data.toString())
                .redirectErrorStream(true).start();
        String mountOut = new String(mount.getInputStream().readAllBytes());
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs here (needs root): "
                + mountOut);
        Path fill = data.resolve("fill");
        try {
            broker = new Mosquitto(brokerDir, false, A, "b1");
            control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
            rtbox = new Rtbox(home);
            MqttIT.configure(rtbox, broker, A);
            Files.writeString(home.resolve("etc/rtbox.mqtt.cfg"), "dataDir=" + data.resolve("mqtt") + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
            Files.writeString(home.resolve("etc/rtbox.plan.cfg"), "journal=" + data.resolve("results.journal") + "\n");
            rtbox.start("serve");
            awaitOnline();
            JsonObject r = reply(control.command(A, "plan", "\"plan\":" + MqttPlanIT.plan("full", "3s", "a", "b")));
            assertEquals(200, r.get("code").getAsInt(), r.toString());
            String run = r.getAsJsonObject("body").get("run").getAsString();
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/progress")
                    && m.json().get("cell").getAsInt() == 1, 15_000),
                    "the first cell never started; stderr: " + rtbox.err);
            MqttHardeningIT.fillLeaving(fill, 0);
            // Fixed on purpose: the first cell (3 s) ends while the disk is full; the wait is the scenario.
            Thread.sleep(4000);
            assertAnswers();
            Files.delete(fill);
            ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run
                    + "/result"), 60_000);
            assertNotNull(result, "no plan result after the disk had room again; stderr: " + rtbox.err);
            JsonElement state = result.json().get("state");
            assertEquals("complete", state == null ? null : state.getAsString(), "the plan's result: "
                    + result.payload().substring(0, Math.min(400, result.payload().length())));
            assertEquals(2, result.json().get("cells_run").getAsInt(), "cells run");
            long last = result.json().get("sequence").getAsLong();
            assertGapless(run, last);
            // results re-sends the run from the journal: the same payload for each number, no crash told.
            JsonObject again = reply(control.command(A, "results", "\"run\":\"" + run + "\""));
            assertEquals(200, again.get("code").getAsInt(), again.toString());
            Await.until(20_000, () -> "the result re-sent by results", () -> control.all(m -> m.topic().equals(
                    "rtbox/v1/up/a1/runs/" + run + "/result")).size() >= 2);
            java.util.Map<Long, java.util.Set<String>> payloads = new java.util.TreeMap<>();
            for (ControlRoom.Received m : control.all(x -> x.topic().startsWith("rtbox/v1/up/a1/runs/" + run + "/")
                    && !x.topic().endsWith("/progress"))) {
                JsonObject o = m.json();
                o.remove("resent");
                payloads.computeIfAbsent(o.get("sequence").getAsLong(), k -> new java.util.HashSet<>())
                        .add(o.has("verdict") ? o.get("verdict").toString() : o.toString());
                assertTrue(!m.payload().contains("crash or power loss"), "a crash told: " + m.payload());
            }
            for (java.util.Map.Entry<Long, java.util.Set<String>> e : payloads.entrySet()) {
                assertEquals(1, e.getValue().size(), "sequence " + e.getKey() + " went out with " + e.getValue().size()
                        + " different verdicts: " + e.getValue());
            }
        } finally {
            if (rtbox != null) {
                rtbox.close();
                rtbox = null;
            }
            new ProcessBuilder("umount", data.toString()).inheritIO().start().waitFor();
            Files.deleteIfExists(data);
        }
    }
}
