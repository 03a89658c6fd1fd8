package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rtbox job}, the all-in-one default, booted for real: the embedded broker
 * (rtbox.broker) starts, the appliance connects to it, the run goes through MQTT and
 * its result comes back; meanwhile the broker refuses a client without the password
 * or with a wrong one, and is not reachable on the machine's other address. When the
 * job ends, no appliance process is left.
 */
class JobIT {
    @TempDir
    Path home;
    Rtbox job;

    @AfterEach
    void tearDown() throws Exception {
        if (job != null) {
            job.close();
        }
    }

    @Test
    void runsOnTheLocalApplianceThroughTheEmbeddedBrokerWhichOnlyLetsInThePasswordOnLoopback() throws Exception {
        job = new Rtbox(home);
        Process p = job.start("job", "run", "local", "timer", "-D", "4s", "-i", "1000");
        int port = awaitPort(job, 120_000);
        Path passwordFile = home.resolve("data/broker/password");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(passwordFile)));
        String password = Files.readString(passwordFile).strip();
        String uri = "tcp://127.0.0.1:" + port;
        // Subscribed before the refusal checks: the 4 s run may end while they go on (a loaded
        // CI machine), and a result is not retained, so a later subscriber would miss it.
        try (ControlRoom watcher = new ControlRoom(uri, "control", password, "rtbox/v1/up/local/runs/+/result")) {
            assertRefused(uri, null, null);
            assertRefused(uri, "control", "");
            assertRefused(uri, "control", "not-the-password");
            assertRefused(uri, "local", password + "x");
            InetAddress other = nonLoopback();
            if (other != null) {
                assertThrows(IOException.class, () -> new Socket(other, port).close(),
                        "the broker answered on " + other.getHostAddress());
            } else {
                System.err.println("JobIT: this machine has no non-loopback IPv4 address; that check is skipped");
            }
            ControlRoom.Received result = watcher.await(m -> m.topic().endsWith("/result"), 120_000);
            assertNotNull(result, "no result through the embedded broker; job: " + job.out + job.err);
            // Far above Moquette's own 8092-byte limit, which would have dropped it.
            assertTrue(result.payload().length() > 8092, "result of " + result.payload().length() + " bytes");
            assertEquals("local", result.json().get("appliance").getAsString());
        }
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the job did not end");
        String out = String.join("\n", job.out);
        // No thresholds given: MEASURED, exit 0, never PASS (issue 16).
        assertEquals(0, p.exitValue(), "exit " + p.exitValue() + ": " + out + job.err);
        assertTrue(out.matches("(?s).*local: MEASURED max .*"), out);
        assertEquals(List.of(), processesOf(home), "processes of this job left running");
        assertThrows(IOException.class, () -> new Socket("127.0.0.1", port).close(), "the broker still listens");
    }

    /**
     * The README's main command in small: {@code rtbox job PLAN.json --report DIR} runs the
     * plan on the local appliance over MQTT and writes the same report as a local
     * {@code rtbox plan run --report}, from the messages that came back.
     */
    @Test
    void aPlanGoesOverMqttAndComesBackAsTheReport() throws Exception {
        Path plan = home.resolve("two.json");
        Files.writeString(plan, "{\"rtbox_plan\":1,\"name\":\"two\",\"probe\":\"timer\",\"duration\":\"1s\","
                + "\"warmup\":\"0\",\"thresholds\":{\"max_us\":1000000},"
                + "\"cells\":[{\"name\":\"first\"},{\"name\":\"second\"}]}");
        Path report = home.resolve("report");
        job = new Rtbox(home);
        Path junit = home.resolve("ci/junit.xml"), csv = home.resolve("ci/cells.csv");
        Rtbox.Result r = job.run(300, "job", plan.toString(), "--report", report.toString(), "--junit", junit.toString(),
                "--csv", csv.toString());
        // PASS, or INCONCLUSIVE when this loaded machine stalled the JVM; never an error.
        assertTrue(r.exitCode() == 0 || r.exitCode() == 3, "exit " + r.exitCode() + ": " + r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("OVERALL "), r.stdout());
        // The run is in the control room's database, and the job says where its page is.
        assertTrue(r.stdout().contains("rtbox control: run page http://127.0.0.1:8480/ui/run.html?appliance=local&run="),
                r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("rtbox control import: 3 messages stored"), r.stdout() + r.stderr());
        for (String f : List.of("report.txt", "report.json", "report.html", "report.hlog", "cell-1.json",
                "cell-2.json")) {
            assertTrue(Files.size(report.resolve(f)) > 0, f + " missing or empty: " + r.stdout() + r.stderr());
        }
        com.google.gson.JsonObject json = com.google.gson.JsonParser.parseString(
                Files.readString(report.resolve("report.json"))).getAsJsonObject();
        assertEquals("two", json.get("plan").getAsString());
        assertEquals(2, json.getAsJsonArray("cells").size());
        assertTrue(json.getAsJsonArray("cells").get(1).getAsJsonObject().getAsJsonObject("report")
                .getAsJsonObject("result").has("threads"), "cell 2 has its full run report");
        String html = Files.readString(report.resolve("report.html"));
        assertTrue(html.contains("second"));
        // For CI: a JUnit case per cell and check (the cells' max_us check), the cell table as CSV.
        org.w3c.dom.Document d = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(junit.toFile());
        org.w3c.dom.NodeList cases = d.getElementsByTagName("testcase");
        assertEquals("first", ((org.w3c.dom.Element) cases.item(0)).getAttribute("name"));
        assertEquals("max_latency_us", ((org.w3c.dom.Element) cases.item(1)).getAttribute("name"));
        // A threshold out of reach: no failure (the JVM over its budget would be an error, not a failure).
        assertEquals(0, d.getElementsByTagName("failure").getLength(), Files.readString(junit));
        assertEquals(3, Files.readAllLines(csv).size(), Files.readString(csv));
        // the user's plan file in the header and each cell's command, not the appliance's copy of it
        assertTrue(html.contains("plan file: <b>" + plan + "</b>"), "plan file in the report's header");
        assertTrue(html.contains("rtbox plan run " + plan + " # cell 2"), "plan file in the cell's command");
        assertTrue(html.contains("data-plot=\"overlay\""), "both cells overlaid");
        try (Stream<Path> m = Files.list(report.resolve("mqtt"))) {
            assertEquals(3, m.count(), "the plan's result and its two cells, as they came over MQTT");
        }
        assertEquals(List.of(), processesOf(home), "processes of this job left running");
    }

    /**
     * A job killed outright (SIGKILL) leaves its appliance running: Java cannot have it die
     * with its parent. The next job stops that one before it starts its own on the same
     * framework storage, and leaves nothing behind either.
     */
    @Test
    void theNextJobStopsTheApplianceAKilledJobLeft() throws Exception {
        job = new Rtbox(home);
        job.start("job", "run", "local", "timer", "-D", "60s");
        awaitPort(job, 120_000);
        long end = System.currentTimeMillis() + 120_000;
        while (job.err.stream().noneMatch(l -> l.contains("online after")) && System.currentTimeMillis() < end) {
            Thread.sleep(100);
        }
        job.close(); // SIGKILL, and waits until the job's JVM is gone
        // Fixed on purpose: the appliance must outlive its job; half a second in which it does not exit is the check.
        Thread.sleep(500);
        assertEquals(1, processesOf(home).size(), "the killed job's appliance: " + processesOf(home));
        try (Rtbox again = new Rtbox(home)) {
            Rtbox.Result r = again.run(300, "job", "run", "local", "timer", "-D", "1s");
            assertTrue(r.exitCode() == 0 || r.exitCode() == 1, "exit " + r.exitCode() + ": " + r.stdout() + r.stderr());
            assertTrue(r.stderr().contains("stopping the appliance an earlier job left running"), r.stderr());
        }
        assertEquals(List.of(), processesOf(home), "processes of these jobs left running");
    }

    /** The broker's port, from the job's "broker on tcp://127.0.0.1:PORT" line. */
    static int awaitPort(Rtbox r, long timeoutMs) throws InterruptedException {
        Pattern line = Pattern.compile("broker on tcp://127\\.0\\.0\\.1:(\\d+)");
        int[] port = {-1};
        Await.until(timeoutMs, () -> "the job did not say where its broker is: " + r.err, () -> {
            synchronized (r.err) {
                for (String l : r.err) {
                    Matcher m = line.matcher(l);
                    if (m.find()) {
                        port[0] = Integer.parseInt(m.group(1));
                        return true;
                    }
                }
            }
            return false;
        });
        return port[0];
    }

    /** A connect as MQTT 3.1.1 only (Paho would retry as 3.1 and show that refusal instead): CONNACK 4 or 5. */
    private static void assertRefused(String uri, String user, String password) throws MqttException {
        MqttClient c = new MqttClient(uri, "jobit-" + System.nanoTime(), new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setConnectionTimeout(10);
        if (user != null) {
            o.setUserName(user);
            o.setPassword(password.toCharArray());
        }
        try {
            c.connect(o);
            c.disconnect();
            throw new AssertionError("connected as " + user + " with password '" + password + "'");
        } catch (MqttException e) {
            assertTrue(e.getReasonCode() == MqttException.REASON_CODE_FAILED_AUTHENTICATION
                    || e.getReasonCode() == MqttException.REASON_CODE_NOT_AUTHORIZED, user + ": " + e);
        } finally {
            c.close();
        }
    }

    static InetAddress nonLoopback() throws IOException {
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (n.isUp() && !n.isLoopback()) {
                for (InetAddress a : Collections.list(n.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        }
        return null;
    }

    /** Processes whose command line names this test's home (the job's appliance has it in its -D options). */
    static List<String> processesOf(Path home) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                if (!p.getFileName().toString().matches("\\d+")) {
                    continue;
                }
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ');
                    if (cmd.contains(home.toString())) {
                        found.add(p.getFileName() + ": " + cmd);
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        }
        return found;
    }
}
