package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.runtime.fleet.SimulatedFleet;

/**
 * Issue 34 item 4: the control room's {@code /metrics} scraped by Debian's real Prometheus with a
 * viewer's API token from a 0600 file, configured by docs/grafana.md's own scrape block; a plan run
 * by each of two simulated appliances (the real protocol, a real appliance's recorded cell and
 * result: FAIL, worst 4,689.3 us); the values read back through Prometheus' HTTP API (appliances
 * online, the verdict counted once per run, the last run's worst latency per appliance and cell);
 * {@code promtool check metrics} on a scrape; every PromQL expression of docs/grafana.md's
 * dashboard run by that Prometheus; no token, a wrong one and a revoked one refused with 401.
 */
class MetricsIT {
    static final Path GRAFANA = Path.of("..", "docs", "grafana.md");
    @TempDir
    Path brokerDir;
    @TempDir
    Path controlHome;
    @TempDir
    Path prometheusDir;
    private Mosquitto broker;
    private ControlServer control;
    private SimulatedFleet fleet;
    private Prometheus prometheus;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {prometheus, fleet, control, broker}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void prometheusScrapesTheFleetWithAViewersTokenAndTheDashboardsQueriesRun() throws Exception {
        if (!Prometheus.available()) {
            Assumptions.assumeTrue(System.getenv("CI") != null,
                    "no prometheus here (apt-get install prometheus): skipped");
            throw new AssertionError("CI must install prometheus (.ci/run does)");
        }
        broker = new Mosquitto(brokerDir, "sim0", "sim1");
        control = new ControlServer(controlHome, broker);
        ControlServer.Client admin = control.client();
        assertEquals(200, admin.login("admin", control.adminPassword()).status());

        // A viewer's token, as docs/grafana.md says, in a file only its owner reads.
        ControlServer.Client.Response made = admin.post("/tokens", "{\"name\":\"prometheus\",\"role\":\"viewer\"}");
        assertEquals(201, made.status(), made.body());
        String token = made.json().get("token").getAsString();
        Path tokenFile = Files.createFile(prometheusDir.resolve("rtbox-token"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tokenFile, token + "\n");

        // No token, a wrong one: 401, nothing served.
        HttpResponse<String> none = scrape(null);
        assertEquals(401, none.statusCode(), none.body());
        assertTrue(none.body().contains("needs an API token"), none.body());
        assertEquals(401, scrape("rtbox_not-a-token").statusCode());

        // Two appliances run a 2-cell plan each (a real appliance's FAIL cell and result).
        fleet = new SimulatedFleet(List.of("sim0", "sim1"), i -> Mosquitto.PASSWORD, i -> new String[] {broker.uri()},
                5);
        fleet.start(0);
        assertTrue(fleet.awaitConnected(30_000), "the simulated appliances did not connect");
        Await.until(30_000, () -> admin.get("/fleet").body(),
                () -> admin.get("/fleet?state=online").json().getAsJsonArray("appliances").size() == 2);
        fleet.appliances().forEach(a -> assertTrue(a.startPlan(2, 50), a.id() + " did not start its plan"));
        assertTrue(fleet.awaitDrained(30_000), "outboxes not drained: " + fleet.stuck());
        Await.until(30_000, () -> admin.get("/runs").body(), () -> admin.get("/runs").json().get("total").getAsLong() == 2);

        // promtool's lint on what the control room serves.
        HttpResponse<String> served = scrape(token);
        assertEquals(200, served.statusCode(), served.body());
        Process promtool = new ProcessBuilder(Prometheus.PROMTOOL.toString(), "check", "metrics")
                .redirectErrorStream(true).start();
        promtool.getOutputStream().write(served.body().getBytes(StandardCharsets.UTF_8));
        promtool.getOutputStream().close();
        String lint = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), "promtool check metrics: " + lint);
        assertTrue(served.body().contains("jvm_memory_used_bytes{area=\"heap\"}"), "no JVM metrics: " + served.body());

        // Prometheus, configured by docs/grafana.md's block with the target and file replaced.
        String block = between(Files.readString(GRAFANA), "```yaml\n", "```\n");
        assertTrue(block.contains("'control.example:8480'") && block.contains("/etc/prometheus/rtbox-token"), block);
        String config = "global:\n  scrape_interval: 1s\n" + block.replace("scrape_interval: 30s", "scrape_interval: 1s")
                .replace("control.example:8480", "127.0.0.1:" + control.port)
                .replace("/etc/prometheus/rtbox-token", tokenFile.toString());
        prometheus = new Prometheus(prometheusDir, config);
        Await.until(30_000, () -> "not scraped: " + prometheus.targets(),
                () -> Double.valueOf(1).equals(prometheus.value("up{job=\"rtbox-control\"}"))
                        && prometheus.value("rtbox_control_runs_total{verdict=\"FAIL\"}") != null);

        // The values, through Prometheus' API.
        assertEquals(2.0, prometheus.value("sum(rtbox_control_appliances{state=~\"online|busy\"})"));
        assertEquals(0.0, prometheus.value("sum(rtbox_control_appliances{state=\"offline\"})"));
        assertEquals(2.0, prometheus.value("rtbox_control_runs_total{verdict=\"FAIL\"}"), prometheus.targets());
        assertEquals(0.0, prometheus.value("rtbox_control_runs_total{verdict=\"PASS\"}"));
        for (String a : List.of("sim0", "sim1")) {
            for (String cell : List.of("1", "2")) {
                Double max = prometheus.value("rtbox_control_last_run_max_seconds{appliance=\"" + a + "\",cell=\"" + cell
                        + "\"}");
                assertNotNull(max, a + " cell " + cell + ": " + prometheus.query("rtbox_control_last_run_max_seconds"));
                assertEquals(4689.3e-6, max, 1e-9);
                assertEquals(64.9e-6, prometheus.value("rtbox_control_last_run_p99_seconds{appliance=\"" + a
                        + "\",cell=\"" + cell + "\"}"), 1e-9);
            }
        }
        assertEquals(4.0, prometheus.value("count(rtbox_control_last_run_max_seconds)"));
        assertTrue(prometheus.value("rtbox_control_ingest_messages_total{type=\"cell\"}") >= 4);
        assertEquals(1.0, prometheus.value("rtbox_control_mqtt_connected"));
        assertEquals(0.0, prometheus.value("sum(rtbox_control_webhook_failures_total)"));
        assertTrue(prometheus.value("sum(jvm_memory_used_bytes{area=\"heap\"})") > 0);

        // The dashboard: valid JSON, each expression parsed and run by this Prometheus (the
        // template variables as Grafana fills them for "All" and a 1-minute step).
        JsonObject dashboard = JsonParser.parseString(between(Files.readString(GRAFANA), "```json\n", "```\n"))
                .getAsJsonObject();
        assertEquals("DS_PROMETHEUS", dashboard.getAsJsonArray("__inputs").get(0).getAsJsonObject().get("name")
                .getAsString());
        List<String> exprs = new ArrayList<>();
        collect(dashboard, exprs);
        assertTrue(exprs.size() >= 12, exprs.toString());
        for (String e : exprs) {
            String runnable = e.replace("$site", ".*").replace("$__rate_interval", "1m");
            JsonObject answer = prometheus.query(runnable);
            assertEquals("success", answer.get("status").getAsString(), e + ": " + answer);
        }
        assertEquals(2.0, prometheus.value(exprs.get(0).replace("$site", ".*")), exprs.get(0));
        Double worst = prometheus.value("max(" + exprs.stream().filter(x -> x.contains("last_run_max_seconds")
                && x.contains("sort_desc")).findFirst().orElseThrow().replace("$site", ".*") + ")");
        assertEquals(4689.3e-6, worst, 1e-9);

        // A revoked token: the next scrape is refused, and Prometheus sees the target down.
        long id = made.json().get("id").getAsLong();
        assertEquals(200, admin.send("DELETE", "/tokens/" + id, null, admin.csrf).status());
        HttpResponse<String> revoked = scrape(token);
        assertEquals(401, revoked.statusCode(), revoked.body());
        assertTrue(revoked.body().contains("API token 'prometheus' was revoked"), revoked.body());
        Await.until(30_000, () -> prometheus.targets(),
                () -> Double.valueOf(0).equals(prometheus.value("up{job=\"rtbox-control\"}")));
    }

    private HttpResponse<String> scrape(String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + control.port + "/metrics"))
                .timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static String between(String text, String open, String close) {
        int start = text.indexOf(open);
        assertTrue(start >= 0, "no " + open.strip() + " block in " + GRAFANA);
        int end = text.indexOf(close, start + open.length());
        return text.substring(start + open.length(), end);
    }

    private static void collect(JsonElement e, List<String> exprs) {
        if (e.isJsonObject()) {
            for (var m : e.getAsJsonObject().entrySet()) {
                if (m.getKey().equals("expr")) {
                    exprs.add(m.getValue().getAsString());
                } else {
                    collect(m.getValue(), exprs);
                }
            }
        } else if (e.isJsonArray()) {
            e.getAsJsonArray().forEach(x -> collect(x, exprs));
        }
    }
}
