import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * bench/mqtt's two measurements (run by run.sh, with Paho on the class path):
 *
 * latency URI PASSWORD APPLIANCE N DURATION
 *   sends N run commands to a real appliance, one after the other, as the control room
 *   does, and for each result takes its arrival time at this subscriber minus the run's
 *   end ("ended", the appliance's clock, the same machine): the time from a run's end to
 *   its result at a subscriber. Prints one line per run, then percentiles.
 *
 * ingest URI PASSWORD PAYLOAD APPLIANCES RESULTS
 *   APPLIANCES simulated appliances (one MQTT client each, user = its id) each publish
 *   RESULTS results (PAYLOAD, a real result's JSON, with its run and sequence replaced)
 *   at QoS 1 with one message in flight, as the appliance's outbox drains; one
 *   control-room client subscribed at QoS 1 counts distinct (appliance, run, sequence).
 *   Prints results/s from the first publish to the last distinct arrival.
 */
public class MqttBench {
    public static void main(String[] a) throws Exception {
        if (a.length == 5 && a[0].equals("latency")) {
            latency(a[1], a[2], a[3], Integer.parseInt(a[4]), "1s");
        } else if (a.length == 6 && a[0].equals("latency")) {
            latency(a[1], a[2], a[3], Integer.parseInt(a[4]), a[5]);
        } else if (a.length == 6 && a[0].equals("ingest")) {
            ingest(a[1], a[2], Path.of(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]));
        } else {
            System.err.println("usage: MqttBench latency URI PASSWORD APPLIANCE N [DURATION]"
                    + " | ingest URI PASSWORD PAYLOAD APPLIANCES RESULTS");
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

    static void latency(String uri, String password, String appliance, int n, String duration) throws Exception {
        LinkedBlockingQueue<long[]> results = new LinkedBlockingQueue<>(); // {arrival ms, ended ms, length}
        LinkedBlockingQueue<String> replies = new LinkedBlockingQueue<>();
        Pattern ended = Pattern.compile("\"ended\":\"([^\"]+)\"");
        MqttClient c = new MqttClient(uri, "bench-" + UUID.randomUUID(), new MemoryPersistence());
        c.setCallback(new MqttCallback() {
            public void connectionLost(Throwable cause) {
                System.err.println("latency: connection lost: " + cause);
            }

            public void messageArrived(String topic, MqttMessage m) {
                long now = System.currentTimeMillis();
                String p = new String(m.getPayload(), StandardCharsets.UTF_8);
                if (topic.endsWith("/result")) {
                    Matcher e = ended.matcher(p);
                    results.add(new long[] {now, e.find() ? Instant.parse(e.group(1)).toEpochMilli() : -1,
                            m.getPayload().length});
                } else {
                    replies.add(p);
                }
            }

            public void deliveryComplete(IMqttDeliveryToken t) {
            }
        });
        c.connect(options("control", password));
        String up = "rtbox/v1/up/" + appliance;
        c.subscribe(new String[] {up + "/runs/+/result", up + "/reply/+"}, new int[] {1, 1});
        List<Long> ms = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String cmd = "{\"requestId\":\"bench-" + UUID.randomUUID() + "\",\"expires\":\""
                    + Instant.now().plusSeconds(60) + "\",\"probe\":\"timer\",\"parameters\":{\"duration\":\""
                    + duration + "\"}}";
            c.publish("rtbox/v1/down/" + appliance + "/cmd/run", cmd.getBytes(StandardCharsets.UTF_8), 1, false);
            String reply = replies.poll(30, TimeUnit.SECONDS);
            if (reply == null || !reply.contains("\"code\":200")) {
                throw new IllegalStateException("run " + i + ": no or bad reply: " + reply);
            }
            long[] r = results.poll(120, TimeUnit.SECONDS);
            if (r == null || r[1] < 0) {
                throw new IllegalStateException("run " + i + ": no result with an end time");
            }
            ms.add(r[0] - r[1]);
            System.out.printf(Locale.ROOT, "  run %2d: result %d bytes, %d ms after the run's end%n", i, r[2], r[0] - r[1]);
        }
        c.disconnect();
        c.close();
        Collections.sort(ms);
        System.out.printf(Locale.ROOT, "  end-to-result over %d runs: min %d ms, p50 %d ms, p90 %d ms, max %d ms%n",
                n, ms.get(0), pct(ms, 50), pct(ms, 90), ms.get(ms.size() - 1));
    }

    static long pct(List<Long> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    static void ingest(String uri, String password, Path payloadFile, int appliances, int each) throws Exception {
        String template = Files.readString(payloadFile)
                .replaceFirst("\"run\":\"[^\"]*\"", "\"run\":\"RUNID\"")
                .replaceFirst("\"sequence\":\\d+", "\"sequence\":SEQ")
                .replaceFirst("\"appliance\":\"[^\"]*\"", "\"appliance\":\"APPL\"");
        long expected = (long) appliances * each;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicLong repeats = new AtomicLong();
        AtomicLong lastNs = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        Pattern key = Pattern.compile("\"run\":\"([^\"]+)\".*?\"sequence\":(\\d+)");
        MqttClient control = new MqttClient(uri, "bench-control-" + UUID.randomUUID(), new MemoryPersistence());
        control.setCallback(new MqttCallback() {
            public void connectionLost(Throwable cause) {
                System.err.println("ingest: the control room lost its connection: " + cause);
            }

            public void messageArrived(String topic, MqttMessage m) {
                // What a control room does with each result: parse its identity, drop a repeat.
                String head = new String(m.getPayload(), 0, Math.min(400, m.getPayload().length),
                        StandardCharsets.UTF_8);
                Matcher k = key.matcher(head);
                if (!k.find() || !seen.add(topic + " " + k.group(1) + " " + k.group(2))) {
                    repeats.incrementAndGet();
                    return;
                }
                if (seen.size() == expected) {
                    lastNs.set(System.nanoTime());
                    all.countDown();
                }
            }

            public void deliveryComplete(IMqttDeliveryToken t) {
            }
        });
        control.connect(options("control", password));
        control.subscribe("rtbox/v1/up/+/runs/+/result", 1);

        List<MqttAsyncClient> sims = new ArrayList<>();
        for (int i = 0; i < appliances; i++) {
            String id = String.format(Locale.ROOT, "sim%03d", i);
            MqttAsyncClient s = new MqttAsyncClient(uri, id, new MemoryPersistence());
            s.connect(options(id, password)).waitForCompletion(60_000);
            sims.add(s);
        }
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < appliances; i++) {
            MqttAsyncClient s = sims.get(i);
            String id = String.format(Locale.ROOT, "sim%03d", i);
            Thread t = new Thread(() -> {
                try {
                    for (int r = 1; r <= each; r++) {
                        String run = id + "-run" + r;
                        byte[] p = template.replace("RUNID", run).replace("APPL", id).replace("SEQ", "1")
                                .getBytes(StandardCharsets.UTF_8);
                        // One in flight, as the outbox drains: the next goes after the PUBACK.
                        s.publish("rtbox/v1/up/" + id + "/runs/" + run + "/result", p, 1, false)
                                .waitForCompletion(120_000);
                    }
                } catch (Exception e) {
                    System.err.println(id + ": " + e);
                }
            }, "sim-" + id);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        boolean complete = all.await(60, TimeUnit.SECONDS);
        long end = complete ? lastNs.get() : System.nanoTime();
        double s = (end - t0) / 1e9;
        System.out.printf(Locale.ROOT, "ingest: %d appliances x %d results of %d bytes: %d of %d arrived (%d repeats)"
                + " in %.2f s: %.0f results/s, %.1f MB/s%n", appliances, each, template.length(), seen.size(),
                expected, repeats.get(), s, seen.size() / s, seen.size() * (double) template.length() / s / 1e6);
        for (MqttAsyncClient c : sims) {
            try {
                c.disconnect().waitForCompletion(10_000);
            } catch (Exception e) {
                // the broker closed it already (said above)
            }
            c.close(true);
        }
        control.disconnect();
        control.close();
        if (!complete) {
            System.exit(1);
        }
    }
}
