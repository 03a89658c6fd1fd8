import java.io.IOException;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import com.sun.net.httpserver.HttpServer;

/**
 * bench/control/webhooks.sh's measurement (Paho and Gson on the class path):
 *
 * BROKER PASSWORD N CONTROL_URL ADMIN_PASSWORD CELL_JSON RESULT_JSON ROUNDS
 *   The ingest's rate of results with no webhook and with 10 (site *, run.verdict: every result
 *   here is a FAIL, so each one makes 10 deliveries), alternated ROUNDS times in one control room:
 *   per arm, N appliances each publish a plan run (one cell and its FAIL result, a real
 *   appliance's recorded messages with the envelope replaced) at QoS 1 from one client, and the
 *   time from the first publish to the N-th result stored (the runs API's FAIL count, polled every
 *   20 ms) gives results/s. With webhooks, a local HTTP receiver in this JVM answers 200 to each
 *   delivery, and the time until all N x 10 have arrived gives deliveries/s; the webhooks are
 *   deleted after each such arm (their deliveries with them).
 */
public class WebhookBench {
    static final AtomicLong received = new AtomicLong();

    public static void main(String[] a) throws Exception {
        if (a.length != 8) {
            System.err.println("usage: see the class comment");
            System.exit(2);
        }
        int n = Integer.parseInt(a[2]), rounds = Integer.parseInt(a[7]);
        String control = a[3].replaceAll("/$", "");
        JsonObject cell = JsonParser.parseString(Files.readString(Path.of(a[5]))).getAsJsonObject();
        JsonObject result = JsonParser.parseString(Files.readString(Path.of(a[6]))).getAsJsonObject();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        receiver.createContext("/", x -> {
            x.getRequestBody().readAllBytes();
            received.incrementAndGet();
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        receiver.setExecutor(Executors.newFixedThreadPool(8));
        receiver.start();
        String hook = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook/";

        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setUserName("sim");
        o.setPassword(a[1].toCharArray());
        o.setMaxInflight(1000);
        MqttClient c = new MqttClient(a[0], "bench-webhooks", new MemoryPersistence());
        c.connect(o);
        for (int i = 0; i < n; i++) {
            JsonObject s = new JsonObject();
            s.addProperty("schema", 1);
            s.addProperty("type", "status");
            s.addProperty("timestamp", Instant.now().toString());
            s.addProperty("appliance", id(i));
            s.addProperty("state", "online");
            s.addProperty("since", Instant.now().toString());
            s.addProperty("busy", false);
            s.add("probes", JsonParser.parseString("[\"timer\"]"));
            s.add("workloads", JsonParser.parseString("[\"pipe\"]"));
            s.addProperty("outbox_messages", 0);
            s.addProperty("outbox_bytes", 0);
            c.publish("rtbox/v1/up/" + id(i) + "/status", bytes(s), 1, false);
        }

        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(control + "/api/v1/session"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"user\":\"admin\",\"password\":\"" + a[4] + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        String csrf = JsonParser.parseString(login.body()).getAsJsonObject().get("csrf").getAsString();

        List<double[]> without = new ArrayList<>(), with = new ArrayList<>();
        long stored = 0;
        for (int r = 0; r <= rounds; r++) {
            boolean warmup = r == 0;
            for (int hooks : new int[] {0, 10}) {
                List<Long> ids = new ArrayList<>();
                for (int k = 0; k < hooks; k++) {
                    HttpResponse<String> made = send(http, "POST", control + "/api/v1/webhooks", csrf,
                            "{\"site\":\"*\",\"url\":\"" + hook + k + "\",\"events\":[\"run.verdict\"]}");
                    if (made.statusCode() != 201) {
                        throw new IOException("webhook: " + made.statusCode() + " " + made.body());
                    }
                    ids.add(JsonParser.parseString(made.body()).getAsJsonObject().get("id").getAsLong());
                }
                long before = received.get();
                String run = "r" + r + "w" + hooks;
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    publishRun(c, cell, result, id(i), run);
                }
                stored += n;
                while (fails(http, control) < stored) {
                    Thread.sleep(20);
                }
                double ingestS = (System.nanoTime() - t0) / 1e9;
                double deliverS = Double.NaN;
                if (hooks > 0) {
                    long want = before + (long) n * hooks, end = System.currentTimeMillis() + 300_000;
                    while (received.get() < want && System.currentTimeMillis() < end) {
                        Thread.sleep(20);
                    }
                    deliverS = received.get() >= want ? (System.nanoTime() - t0) / 1e9 : Double.NaN;
                    for (long id : ids) {
                        send(http, "DELETE", control + "/api/v1/webhooks/" + id, csrf, null);
                    }
                }
                System.out.printf(Locale.ROOT, "%s %2d webhooks: %d results stored in %.2f s = %.0f results/s%s%n",
                        warmup ? "warm-up" : "round " + r, hooks, n, ingestS, n / ingestS, hooks == 0 ? ""
                                : String.format(Locale.ROOT, "; %d deliveries received in %.2f s = %.0f/s", n * hooks,
                                        deliverS, n * hooks / deliverS));
                if (!warmup) {
                    (hooks == 0 ? without : with).add(new double[] {n / ingestS, n * hooks / deliverS});
                }
            }
        }
        double w0 = median(without, 0), w10 = median(with, 0);
        System.out.printf(Locale.ROOT, "median of %d rounds: %.0f results/s without webhooks, %.0f with 10 (ratio %.2f);"
                + " deliveries %.0f/s%n", rounds, w0, w10, w10 / w0, median(with, 1));
        c.disconnect();
        c.close();
        receiver.stop(0);
        System.exit(0);
    }

    static void publishRun(MqttClient c, JsonObject cell, JsonObject result, String id, String run) throws Exception {
        JsonObject m = addressed(cell, id, run, 2);
        m.addProperty("cell", 1);
        m.addProperty("cells", 1);
        m.addProperty("cell_name", "cell1");
        c.publish("rtbox/v1/up/" + id + "/runs/" + run + "/cell", bytes(m), 1, false);
        JsonObject r = addressed(result, id, run, 3);
        r.addProperty("cells_planned", 1);
        r.addProperty("cells_run", 1);
        JsonArray list = new JsonArray();
        JsonObject e = result.getAsJsonArray("cells").get(0).getAsJsonObject().deepCopy();
        e.addProperty("cell", 1);
        e.addProperty("name", "cell1");
        e.addProperty("sequence", 2);
        list.add(e);
        r.add("cells", list);
        c.publish("rtbox/v1/up/" + id + "/runs/" + run + "/result", bytes(r), 1, false);
    }

    /** A copy of a recorded message with this appliance's envelope: time, appliance, run, sequence. */
    static JsonObject addressed(JsonObject recorded, String id, String run, int sequence) {
        JsonObject m = recorded.deepCopy();
        m.addProperty("timestamp", Instant.now().toString());
        m.addProperty("appliance", id);
        m.addProperty("run", run);
        m.addProperty("sequence", sequence);
        return m;
    }

    static long fails(HttpClient http, String control) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(control
                + "/api/v1/runs?verdict=FAIL&limit=1")).build(), HttpResponse.BodyHandlers.ofString());
        return JsonParser.parseString(r.body()).getAsJsonObject().get("total").getAsLong();
    }

    static HttpResponse<String> send(HttpClient http, String method, String url, String csrf, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("X-CSRF-Token", csrf);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static double median(List<double[]> rows, int k) {
        double[] v = rows.stream().mapToDouble(x -> x[k]).sorted().toArray();
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static String id(int i) {
        return String.format(Locale.ROOT, "fleet%04d", i);
    }

    static byte[] bytes(JsonObject o) {
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }
}
