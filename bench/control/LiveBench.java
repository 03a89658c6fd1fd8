import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * bench/control/live.sh's measurement (Paho and Gson on the class path):
 *
 *   LiveBench BROKER PASSWORD CONTROL_URL ADMIN_PASSWORD CHROMEDRIVER_URL APPLIANCE PLAN CLICKS
 *
 * Real headless Chromium (Debian's, through Debian's chromedriver: the W3C WebDriver protocol
 * spoken here over HTTP, so the bench needs no Selenium) logs in to the control room; then,
 * CLICKS times after one warm-up: the Start page with PLAN on APPLIANCE, a click on Start (its
 * time taken in the page, a capture listener's Date.now()), a click on the "follow live" link
 * as soon as it shows, and on the live page the first thread row with samples, taken after
 * the frame that showed it (two requestAnimationFrame). Beside it, in the same run, a bare
 * Paho subscriber on the broker takes the arrival of the appliance's first live message with
 * samples for that run (the peer: what the control room, its Server-Sent Events and the page
 * add is the difference) and of its cell start (progress). Browser and bench share this
 * machine's clock. Prints each click's figures and the medians.
 */
public class LiveBench {
    static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static String driver;
    static String session;

    public static void main(String[] a) throws Exception {
        if (a.length != 8) {
            System.err.println("usage: see the class comment");
            System.exit(2);
        }
        String broker = a[0], password = a[1], base = a[2], admin = a[3], appliance = a[5], plan = a[6];
        driver = a[4];
        int clicks = Integer.parseInt(a[7]);

        Map<String, Long> firstLive = new ConcurrentHashMap<>(), cellStart = new ConcurrentHashMap<>();
        MqttClient sub = new MqttClient(broker, "bench-live", new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setUserName("control-bench");
        o.setPassword(password.toCharArray());
        sub.connect(o);
        sub.subscribe(new String[] {"rtbox/v1/up/" + appliance + "/live", "rtbox/v1/up/" + appliance + "/runs/+/progress"},
                new int[] {0, 1}, null);
        sub.setCallback(new org.eclipse.paho.client.mqttv3.MqttCallback() {
            public void connectionLost(Throwable cause) {
            }

            public void messageArrived(String topic, org.eclipse.paho.client.mqttv3.MqttMessage m) {
                long at = System.currentTimeMillis();
                JsonObject j = JsonParser.parseString(new String(m.getPayload())).getAsJsonObject();
                if (!j.has("run")) {
                    return;
                }
                String run = j.get("run").getAsString();
                if (topic.endsWith("/live")) {
                    JsonArray t = j.getAsJsonArray("threads");
                    if (t != null && t.size() > 0 && t.get(0).getAsJsonObject().get("samples").getAsLong() > 0) {
                        firstLive.putIfAbsent(run, at);
                    }
                } else {
                    cellStart.putIfAbsent(run, at);
                }
            }

            public void deliveryComplete(org.eclipse.paho.client.mqttv3.IMqttDeliveryToken t) {
            }
        });

        JsonObject caps = JsonParser.parseString("""
                {"capabilities":{"alwaysMatch":{"goog:chromeOptions":{"binary":"/usr/bin/chromium","args":["--headless",
                 "--no-sandbox","--disable-gpu","--no-first-run","--disable-background-networking","--disable-sync",
                 "--disable-component-update","--window-size=1280,800"]}}}}""").getAsJsonObject();
        session = "/session/" + call("POST", "/session", caps).getAsJsonObject().get("sessionId").getAsString();
        try {
            call("POST", session + "/timeouts", JsonParser.parseString("{\"script\":60000}"));
            go(base + "/ui/login.html");
            js("document.querySelector('#user').value = 'admin'; document.querySelector('#password').value = arguments[0];"
                    + " document.querySelector('#login-button').click()", admin);
            until("return !!document.querySelector('nav.top')");
            System.out.println("click  start answered  broker: cell start  broker: first live  page: first live drawn"
                    + "  (ms after the click on Start)");
            List<Long> answered = new ArrayList<>(), brokerStart = new ArrayList<>(), brokerLive = new ArrayList<>(),
                    page = new ArrayList<>();
            for (int i = 0; i <= clicks; i++) {
                until("return fetch('/api/v1/appliances/' + arguments[0]).then((r) => r.json())"
                        + ".then((x) => x.state === 'online')", appliance);
                go(base + "/ui/start.html?appliances=" + appliance + "&plan=" + plan);
                until("return !!document.querySelector('#plan-check.ok')"
                        + " && !!document.querySelector('tr[data-appliance] input.use:checked')");
                js("sessionStorage.removeItem('t0'); document.querySelector('#start').addEventListener('click',"
                        + " () => sessionStorage.setItem('t0', String(Date.now())), { capture: true, once: true })");
                click(find("#start"));
                until("return !!document.querySelector('#to-live')");
                long t0 = Long.parseLong(js("return sessionStorage.getItem('t0')").getAsString());
                long shown = Long.parseLong(js("return String(Date.now())").getAsString());
                String run = js("return document.querySelector('#starts tr.PASS td:nth-child(4)').textContent")
                        .getAsString().trim();
                click(find("#to-live"));
                long drawn = call("POST", session + "/execute/async", script("""
                        const done = arguments[arguments.length - 1];
                        const look = () => {
                          const s = document.querySelector('.live-threads td.samples');
                          if (s && Number(s.textContent) > 0)
                            requestAnimationFrame(() => requestAnimationFrame(() => done(Date.now())));
                          else setTimeout(look, 5);
                        };
                        look();""")).getAsLong();
                until("const c = document.querySelector('section.live-card'); return !!(c && c.dataset.verdict)");
                Long bs = cellStart.get(run), bl = firstLive.get(run);
                System.out.printf("%s  %5d  %5s  %5s  %5d%n", i == 0 ? "warm-up" : String.format("%5d", i), shown - t0,
                        bs == null ? "-" : String.valueOf(bs - t0), bl == null ? "-" : String.valueOf(bl - t0), drawn - t0);
                if (i > 0) {
                    answered.add(shown - t0);
                    page.add(drawn - t0);
                    if (bs != null) {
                        brokerStart.add(bs - t0);
                    }
                    if (bl != null) {
                        brokerLive.add(bl - t0);
                    }
                }
            }
            System.out.printf("median of %d: start answered %d ms, broker: cell start %d ms, broker: first live figure %d ms,"
                    + " page: first live figure drawn %d ms (min %d, max %d)%n", page.size(), median(answered),
                    median(brokerStart), median(brokerLive), median(page), Collections.min(page), Collections.max(page));
        } finally {
            call("DELETE", session, null);
            sub.disconnect();
            sub.close();
        }
    }

    static long median(List<Long> v) {
        if (v.isEmpty()) {
            return -1;
        }
        List<Long> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    static JsonElement call(String method, String path, JsonElement body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(driver + path)).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(new Gson().toJson(body)));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        JsonElement v = JsonParser.parseString(r.body()).getAsJsonObject().get("value");
        if (r.statusCode() != 200) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + v);
        }
        return v;
    }

    static JsonObject script(String source, String... args) {
        JsonObject s = new JsonObject();
        s.addProperty("script", source);
        JsonArray a = new JsonArray();
        for (String x : args) {
            a.add(x);
        }
        s.add("args", a);
        return s;
    }

    static JsonElement js(String source, String... args) throws Exception {
        return call("POST", session + "/execute/sync", script(source, args));
    }

    /** Polls a condition in the page (every 5 ms in the page itself) until it holds, 120 s at most. */
    static void until(String condition, String... args) throws Exception {
        JsonObject s = script("""
                const done = arguments[arguments.length - 1], args = [...arguments].slice(0, -1);
                const test = new Function(%s);
                const end = Date.now() + 60000;
                const look = async () => {
                  let ok = false;
                  try { ok = await test(...args); } catch (e) { ok = false; }
                  if (ok) done(true); else if (Date.now() > end) done(false); else setTimeout(look, 5);
                };
                look();""".formatted(new Gson().toJson(condition)), args);
        for (int i = 0; i < 2; i++) {
            try {
                if (call("POST", session + "/execute/async", s).getAsBoolean()) {
                    return;
                }
            } catch (IllegalStateException e) {
                // a navigation under way ended the script: look again on the new page
            }
        }
        throw new IllegalStateException("not within 120 s: " + condition);
    }

    static void go(String url) throws Exception {
        JsonObject u = new JsonObject();
        u.addProperty("url", url);
        call("POST", session + "/url", u);
    }

    static String find(String css) throws Exception {
        JsonObject f = new JsonObject();
        f.addProperty("using", "css selector");
        f.addProperty("value", css);
        JsonObject e = call("POST", session + "/element", f).getAsJsonObject();
        if (!e.has(ELEMENT)) {
            throw new IllegalStateException("no element " + css + ": " + e);
        }
        return e.get(ELEMENT).getAsString();
    }

    static void click(String element) throws Exception {
        call("POST", session + "/element/" + element + "/click", new JsonObject());
    }
}
