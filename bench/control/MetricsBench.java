import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * bench/control/metrics.sh's measurement (Paho and Gson on the class path):
 *
 * BROKER PASSWORD N CELLS CONTROL_URL ADMIN_PASSWORD CELL_JSON RESULT_JSON
 *   N appliances' online statuses, then a plan run of each: CELLS cells and its result (a real
 *   appliance's recorded cell and result, runtime/src/test/resources/fleet, with the envelope
 *   replaced), so that the control room holds N appliances, N x CELLS last-run cells and N
 *   results. Then a viewer's API token, and GET /metrics timed, 30 times each after 5, two
 *   ways side by side (alternating, one request at a time): the whole scrape, and the peer,
 *   the same endpoint limited to the JVM's families alone ({@code name[]=...}, the client's
 *   standard filter): what the control room's own figures add to a scrape. p50 / p90 / max ms,
 *   bytes and series of each.
 */
public class MetricsBench {
    public static void main(String[] a) throws Exception {
        if (a.length != 8) {
            System.err.println("usage: see the class comment");
            System.exit(2);
        }
        int n = Integer.parseInt(a[2]), cells = Integer.parseInt(a[3]);
        String control = a[4].replaceAll("/$", "");
        JsonObject cell = JsonParser.parseString(Files.readString(Path.of(a[6]))).getAsJsonObject();
        JsonObject result = JsonParser.parseString(Files.readString(Path.of(a[7]))).getAsJsonObject();
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setUserName("sim");
        o.setPassword(a[1].toCharArray());
        o.setMaxInflight(1000);
        MqttClient c = new MqttClient(a[0], "bench-metrics", new MemoryPersistence());
        c.connect(o);
        for (int i = 0; i < n; i++) {
            String id = id(i);
            JsonObject s = new JsonObject();
            s.addProperty("schema", 1);
            s.addProperty("type", "status");
            s.addProperty("timestamp", Instant.now().toString());
            s.addProperty("appliance", id);
            s.addProperty("state", "online");
            s.addProperty("since", Instant.now().toString());
            s.addProperty("busy", false);
            s.add("probes", JsonParser.parseString("[\"timer\"]"));
            s.add("workloads", JsonParser.parseString("[\"pipe\"]"));
            s.addProperty("outbox_messages", 0);
            s.addProperty("outbox_bytes", 0);
            c.publish("rtbox/v1/up/" + id + "/status", bytes(s), 1, false);
        }
        for (int i = 0; i < n; i++) {
            String id = id(i);
            for (int k = 1; k <= cells; k++) {
                JsonObject m = cell.deepCopy();
                m.addProperty("timestamp", Instant.now().toString());
                m.addProperty("appliance", id);
                m.addProperty("run", "r1");
                m.addProperty("sequence", 2 * k);
                m.addProperty("cell", k);
                m.addProperty("cells", cells);
                m.addProperty("cell_name", "cell" + k);
                c.publish("rtbox/v1/up/" + id + "/runs/r1/cell", bytes(m), 1, false);
            }
            JsonObject r = result.deepCopy();
            r.addProperty("timestamp", Instant.now().toString());
            r.addProperty("appliance", id);
            r.addProperty("run", "r1");
            r.addProperty("sequence", 2 * cells + 1);
            r.addProperty("cells_planned", cells);
            r.addProperty("cells_run", cells);
            JsonArray recorded = result.getAsJsonArray("cells"), list = new JsonArray();
            for (int k = 0; k < cells; k++) {
                JsonObject e = recorded.get(k % recorded.size()).getAsJsonObject().deepCopy();
                e.addProperty("cell", k + 1);
                e.addProperty("name", "cell" + (k + 1));
                e.addProperty("sequence", 2 * k + 2);
                list.add(e);
            }
            r.add("cells", list);
            c.publish("rtbox/v1/up/" + id + "/runs/r1/result", bytes(r), 1, false);
        }
        c.disconnect();
        c.close();

        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(control + "/api/v1/session"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"user\":\"admin\",\"password\":\"" + a[5] + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        String csrf = JsonParser.parseString(login.body()).getAsJsonObject().get("csrf").getAsString();
        long end = System.currentTimeMillis() + 600_000, runs = 0;
        long t0 = System.currentTimeMillis();
        while (System.currentTimeMillis() < end && (runs = JsonParser.parseString(http.send(HttpRequest.newBuilder(
                URI.create(control + "/api/v1/runs?limit=1")).build(), HttpResponse.BodyHandlers.ofString()).body())
                .getAsJsonObject().get("total").getAsLong()) < n) {
            Thread.sleep(500);
        }
        System.out.printf(Locale.ROOT, "stored: %d appliances, %d runs of %d cells each (%.0f s to ingest)%n", n, runs,
                cells, (System.currentTimeMillis() - t0) / 1000.0);
        HttpResponse<String> made = http.send(HttpRequest.newBuilder(URI.create(control + "/api/v1/tokens"))
                .header("Content-Type", "application/json").header("X-CSRF-Token", csrf)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bench\",\"role\":\"viewer\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        String token = JsonParser.parseString(made.body()).getAsJsonObject().get("token").getAsString();
        HttpClient plain = HttpClient.newHttpClient();
        String all = control + "/metrics";
        Set<String> jvm = new LinkedHashSet<>();
        for (String l : get(plain, all, token).split("\n")) {
            if (l.startsWith("# TYPE jvm_") || l.startsWith("# TYPE process_")) {
                jvm.add(l.split(" ")[2]);
            }
        }
        StringBuilder q = new StringBuilder(all).append('?');
        for (String f : jvm) {
            q.append("name[]=").append(URLEncoder.encode(f, StandardCharsets.UTF_8)).append('&');
        }
        String jvmOnly = q.substring(0, q.length() - 1);
        for (int i = 0; i < 5; i++) {
            get(plain, all, token);
            get(plain, jvmOnly, token);
        }
        long[] whole = new long[30], peer = new long[30];
        String bodyAll = null, bodyJvm = null;
        for (int i = 0; i < 30; i++) {
            long s = System.nanoTime();
            bodyAll = get(plain, all, token);
            whole[i] = System.nanoTime() - s;
            s = System.nanoTime();
            bodyJvm = get(plain, jvmOnly, token);
            peer[i] = System.nanoTime() - s;
        }
        report("whole scrape", whole, bodyAll);
        report("peer: the JVM's families alone", peer, bodyJvm);
        Arrays.sort(whole);
        Arrays.sort(peer);
        System.out.printf(Locale.ROOT, "ratio whole / JVM alone: p50 %.2f, p90 %.2f%n", (double) whole[15] / peer[15],
                (double) whole[27] / peer[27]);
    }

    static String id(int i) {
        return String.format(Locale.ROOT, "fleet%04d", i);
    }

    static byte[] bytes(JsonObject o) {
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }

    static String get(HttpClient http, String url, String token) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer "
                + token).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static void report(String what, long[] ns, String body) {
        long[] s = ns.clone();
        Arrays.sort(s);
        long series = body.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
        System.out.printf(Locale.ROOT, "%s: p50 %.1f ms, p90 %.1f ms, max %.1f ms (30 requests); %d bytes, %d series%n",
                what, s[15] / 1e6, s[27] / 1e6, s[29] / 1e6, body.length(), series);
    }
}
