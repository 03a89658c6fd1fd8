import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * bench/control's measurements (run by run.sh with Paho and Gson on the class path):
 *
 * ingest BROKER PASSWORD PAYLOAD APPLIANCES RESULTS CONTROL_URL ADMIN_PASSWORD CONTROL_PID
 *   APPLIANCES simulated appliances (one MQTT client each) publish RESULTS cell messages
 *   each (PAYLOAD, a real cell message, with appliance, run and sequence replaced) at QoS 1,
 *   one in flight, as an appliance's outbox drains. A bare subscriber (Paho, QoS 1, counts
 *   distinct (appliance, run, sequence)) and the control room (rtbox control, which stores
 *   each) are subscribed to the same broker at the same time. Prints each one's results/s
 *   from the first publish to its last result (the control room's: its stored counter,
 *   polled every 20 ms), their ratio, and the control room's CPU seconds per 1,000 results
 *   (/proc/PID/stat, utime + stime, over the ingest).
 *
 * fleet BROKER PASSWORD N CONTROL_URL ADMIN_PASSWORD
 *   N appliances' online statuses, then GET /api/v1/fleet timed (first page of 100, a
 *   filtered page, the last page).
 *
 * runapi CONTROL_URL ADMIN_PASSWORD APPLIANCE RUN
 *   GET /api/v1/runs/APPLIANCE/RUN timed, 30 times after 5 to warm up.
 */
public class ControlBench {
    public static void main(String[] a) throws Exception {
        if (a.length == 9 && a[0].equals("ingest")) {
            ingest(a[1], a[2], Path.of(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]), a[6], a[7],
                    Long.parseLong(a[8]));
        } else if (a.length == 6 && a[0].equals("fleet")) {
            fleet(a[1], a[2], Integer.parseInt(a[3]), a[4], a[5]);
        } else if (a.length == 5 && a[0].equals("runapi")) {
            runApi(a[1], a[2], a[3], a[4]);
        } else {
            System.err.println("usage: see the class comment");
            System.exit(2);
        }
    }

    static MqttConnectOptions options(String user, String password) {
        MqttConnectOptions o = new MqttConnectOptions();
        o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        o.setCleanSession(true);
        o.setConnectionTimeout(30);
        o.setKeepAliveInterval(60);
        o.setUserName(user);
        o.setPassword(password.toCharArray());
        o.setMaxInflight(1000);
        return o;
    }

    /** A logged-in API client. */
    static final class Api {
        final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        final String base;

        Api(String base, String password) throws IOException, InterruptedException {
            this.base = base.replaceAll("/$", "");
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(this.base + "/api/v1/session"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"user\":\"admin\",\"password\":\"" + password + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("log-in: " + r.statusCode() + " " + r.body());
            }
        }

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1" + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        JsonObject json(String path) throws IOException, InterruptedException {
            HttpResponse<String> r = get(path);
            if (r.statusCode() != 200) {
                throw new IOException(path + ": " + r.statusCode() + " " + r.body());
            }
            return JsonParser.parseString(r.body()).getAsJsonObject();
        }
    }

    static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
    }

    static void ingest(String uri, String password, Path payload, int appliances, int each, String control,
            String adminPassword, long controlPid) throws Exception {
        JsonObject template = JsonParser.parseString(Files.readString(payload)).getAsJsonObject();
        int size = Files.readAllBytes(payload).length;
        int expected = appliances * each;
        Api api = new Api(control, adminPassword);
        long storedBefore = api.json("/ingest").get("stored").getAsLong();

        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicLong lastNs = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        MqttClient bare = new MqttClient(uri, "bench-bare", new MemoryPersistence());
        bare.setCallback(new MqttCallback() {
            public void connectionLost(Throwable cause) {
                System.err.println("ingest: the bare subscriber lost its connection: " + cause);
            }

            public void messageArrived(String topic, MqttMessage m) {
                // What any reader does with a result: parse it, drop a repeat by (appliance, run, sequence).
                JsonObject j = JsonParser.parseString(new String(m.getPayload(), StandardCharsets.UTF_8))
                        .getAsJsonObject();
                if (seen.add(j.get("appliance").getAsString() + " " + j.get("run").getAsString() + " "
                        + j.get("sequence").getAsLong()) && seen.size() == expected) {
                    lastNs.set(System.nanoTime());
                    all.countDown();
                }
            }

            public void deliveryComplete(IMqttDeliveryToken t) {
            }
        });
        bare.connect(options("control", password));
        bare.subscribe("rtbox/v1/up/#", 1);

        List<MqttAsyncClient> sims = new ArrayList<>();
        for (int i = 0; i < appliances; i++) {
            String id = String.format(Locale.ROOT, "sim%03d", i);
            MqttAsyncClient s = new MqttAsyncClient(uri, "rtbox-" + id, new MemoryPersistence());
            s.connect(options("sim", password)).waitForCompletion(60_000);
            sims.add(s);
        }
        String tag = Long.toString(System.currentTimeMillis(), 36);
        long cpu0 = cpuTicks(controlPid);
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < appliances; i++) {
            MqttAsyncClient s = sims.get(i);
            String id = String.format(Locale.ROOT, "sim%03d", i);
            Thread t = new Thread(() -> {
                try {
                    for (int r = 1; r <= each; r++) {
                        String run = tag + "-" + id + "-" + r;
                        JsonObject m = template.deepCopy();
                        m.addProperty("appliance", id);
                        m.addProperty("run", run);
                        m.addProperty("sequence", 2);
                        m.addProperty("cell", 1);
                        m.addProperty("cells", 1);
                        byte[] p = m.toString().getBytes(StandardCharsets.UTF_8);
                        // One in flight, as the outbox drains: the next goes after the PUBACK.
                        s.publish("rtbox/v1/up/" + id + "/runs/" + run + "/cell", p, 1, false).waitForCompletion(120_000);
                    }
                } catch (Exception e) {
                    System.err.println(id + ": " + e);
                }
            }, "sim-" + id);
            t.start();
            threads.add(t);
        }
        // The control room's progress, from its own counter.
        long controlEnd = 0;
        long stored = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
        while (System.nanoTime() < deadline) {
            stored = api.json("/ingest").get("stored").getAsLong() - storedBefore;
            if (stored >= expected) {
                controlEnd = System.nanoTime();
                break;
            }
            Thread.sleep(20);
        }
        long cpu1 = cpuTicks(controlPid);
        for (Thread t : threads) {
            t.join();
        }
        boolean bareComplete = all.await(60, TimeUnit.SECONDS);
        double bareS = ((bareComplete ? lastNs.get() : System.nanoTime()) - t0) / 1e9;
        double controlS = ((controlEnd != 0 ? controlEnd : System.nanoTime()) - t0) / 1e9;
        double hz = 100.0; // USER_HZ: clock ticks of /proc/PID/stat
        double cpuS = (cpu1 - cpu0) / hz;
        JsonObject health = api.json("/ingest");
        System.out.printf(Locale.ROOT, "ingest: %d appliances x %d cells of %d bytes: bare %d of %d in %.2f s (%.0f/s);"
                + " control room %d of %d in %.2f s (%.0f/s); ratio %.2f; control room CPU %.2f s = %.2f s per 1000;"
                + " rejected %s%n", appliances, each, size, seen.size(), expected, bareS, seen.size() / bareS, stored,
                expected, controlS, stored / controlS, (stored / controlS) / (seen.size() / bareS), cpuS,
                cpuS / (stored / 1000.0), health.get("rejected"));
        for (MqttAsyncClient c : sims) {
            try {
                c.disconnect().waitForCompletion(10_000);
            } catch (Exception e) {
                // gone already
            }
            c.close(true);
        }
        bare.disconnect();
        bare.close();
        if (!bareComplete || stored < expected) {
            System.exit(1);
        }
    }

    static void fleet(String uri, String password, int n, String control, String adminPassword) throws Exception {
        MqttClient c = new MqttClient(uri, "bench-fleet", new MemoryPersistence());
        c.connect(options("sim", password));
        for (int i = 0; i < n; i++) {
            String id = String.format(Locale.ROOT, "fleet%04d", i);
            JsonObject s = new JsonObject();
            s.addProperty("schema", 1);
            s.addProperty("type", "status");
            s.addProperty("timestamp", java.time.Instant.now().toString());
            s.addProperty("appliance", id);
            s.addProperty("state", "online");
            s.addProperty("since", java.time.Instant.now().toString());
            s.addProperty("busy", i % 7 == 0);
            s.add("probes", JsonParser.parseString("[\"rtc\",\"timer\",\"tsc\"]"));
            s.add("workloads", JsonParser.parseString("[\"blockio\",\"disturber\",\"fairness\",\"pipe\"]"));
            s.addProperty("outbox_messages", 0);
            s.addProperty("outbox_bytes", 0);
            c.publish("rtbox/v1/up/" + id + "/status", s.toString().getBytes(StandardCharsets.UTF_8), 1, false);
        }
        Api api = new Api(control, adminPassword);
        long end = System.currentTimeMillis() + 120_000;
        long total = 0;
        while (System.currentTimeMillis() < end && (total = api.json("/fleet?q=fleet&limit=1").get("total")
                .getAsLong()) < n) {
            Thread.sleep(100);
        }
        c.disconnect();
        c.close();
        // The control room also asks each new appliance for its bundles; nothing answers here.
        time(api, "/fleet?limit=100", "fleet, first page of 100 of " + total);
        time(api, "/fleet?state=busy&limit=100", "fleet, busy ones (filter)");
        time(api, "/fleet?offset=" + Math.max(0, total - 100) + "&limit=100", "fleet, last page");
    }

    static void runApi(String control, String adminPassword, String appliance, String run) throws Exception {
        Api api = new Api(control, adminPassword);
        JsonObject r = api.json("/runs/" + appliance + "/" + run);
        long samples = 0;
        int threads = 0;
        for (var c : r.getAsJsonArray("cells")) {
            for (var t : c.getAsJsonObject().getAsJsonArray("threads")) {
                samples = Math.max(samples, t.getAsJsonObject().get("samples").getAsLong());
                threads++;
            }
        }
        System.out.printf(Locale.ROOT, "run %s/%s: %d cells, %d CPUs, up to %d samples per CPU, answer %d bytes%n",
                appliance, run, r.getAsJsonArray("cells").size(), threads, samples, api.get("/runs/" + appliance + "/"
                        + run).body().length());
        time(api, "/runs/" + appliance + "/" + run, "run page API");
    }

    static void time(Api api, String path, String what) throws Exception {
        for (int i = 0; i < 5; i++) {
            api.get(path);
        }
        long[] ns = new long[30];
        for (int i = 0; i < ns.length; i++) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = api.get(path);
            ns[i] = System.nanoTime() - t0;
            if (r.statusCode() != 200) {
                throw new IOException(path + ": " + r.statusCode());
            }
        }
        Arrays.sort(ns);
        System.out.printf(Locale.ROOT, "%s: GET %s: p50 %.1f ms, p90 %.1f ms, max %.1f ms (30 requests)%n", what, path,
                ns[15] / 1e6, ns[27] / 1e6, ns[29] / 1e6);
    }
}
