package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Issue 17's reliability suite: a corpus of bad commands across every verb and the envelope,
 * made from the tables below (not written out one by one), sent to a real appliance over a
 * real mosquitto. Each must be answered with a 4xx whose message names what was wrong, and
 * the appliance must go on serving (a status answered 200 after every tenth, and after the
 * corpus). The corpus runs four times: the first two warm the JVM up (the JIT, the code
 * cache); its RSS, thread count and open files after the fourth must be within 10 % of those
 * after the second. Then the control room swaps a workload bundle ({@code update} of
 * rtbox.workload.pipe, two versions in turn), 100 times to warm the update path up, then 100
 * times: the footprint after the 100 must be within 10 % of the one before them. Every footprint is taken after a full collection
 * ({@link Footprint}).
 */
class MqttCorpusIT extends MqttFixture {
    static final String A = MqttIT.A;

    /** One bad command: the verb (last topic level), the payload, and what the reply's message must name. */
    record Bad(String verb, String payload, boolean hasRequestId, String names) {
        @Override
        public String toString() {
            return verb + " " + (payload.length() > 120 ? payload.substring(0, 120) + "..." : payload);
        }
    }

    /** The envelope with a fresh requestId and a valid expiry, then {@code body} (members, or empty). */
    static String cmd(String body) {
        return "{\"requestId\":\"" + UUID.randomUUID() + "\",\"expires\":\"" + Instant.now().plusSeconds(600) + "\""
                + (body.isEmpty() ? "" : "," + body) + "}";
    }

    static List<Bad> corpus() {
        List<Bad> c = new ArrayList<>();
        // ---- the envelope, on a verb that would succeed: status
        String[][] envelope = {
            {"", "empty"}, {"x", "not valid JSON"}, {"[]", "object"}, {"[1,2]", "object"},
            {"\"status\"", "object"}, {"42", "object"}, {"null", "object"}, {"true", "object"},
            {"{", "not valid JSON"}, {"{\"requestId\":", "not valid JSON"}, {"{requestId:\"r\"}", "not valid JSON"},
            {"{'requestId':'r'}", "not valid JSON"}, {"{}", "requestId"}, {"{\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":12,\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":true,\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":null,\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":{},\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":[\"r\"],\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"a b\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"../x\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"a/b\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"a#\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"" + "r".repeat(65) + "\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"" + "r".repeat(100_000) + "\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"{\"requestId\":\"\u00e9t\u00e9\",\"expires\":\"2099-01-01T00:00:00Z\"}", "requestId"},
            {"[".repeat(5000) + "]".repeat(5000), "nested"},
            {"{\"a\":" + "[".repeat(5000) + "]".repeat(5000) + "}", "nested"},
            {"{\"a\":" + "{\"b\":".repeat(100) + "1" + "}".repeat(100) + "}", "nested"},
            // Issue 31: its reply would share the topic of the rejected commands' replies.
            {"{\"requestId\":\"none\",\"expires\":\"2099-01-01T00:00:00Z\"}", "reserved"},
        };
        for (String[] e : envelope) {
            c.add(new Bad("status", e[0], false, e[1]));
        }
        String[][] withId = {
            {"", "expires"}, {"\"expires\":\"tomorrow\"", "expires"}, {"\"expires\":\"2001-01-01T00:00:00Z\"", "expired"},
            {"\"expires\":{}", "expires"}, {"\"expires\":[1]", "expires"}, {"\"expires\":true", "expires"},
            {"\"expires\":\"2099-13-01T00:00:00Z\"", "expires"}, {"\"expires\":1", "expired"},
            {"\"expires\":\"\"", "expires"}, {"\"expires\":null", "expires"},
        };
        for (String[] e : withId) {
            String payload = "{\"requestId\":\"" + UUID.randomUUID() + "\"" + (e[0].isEmpty() ? "" : "," + e[0]) + "}";
            c.add(new Bad("status", payload, true, e[1]));
        }
        String[][] schema = {
            {"\"schema\":{}", "schema"}, {"\"schema\":2", "schema"}, {"\"schema\":\"1\"", "schema"},
            {"\"schema\":[1]", "schema"}, {"\"schema\":null", "schema"}, {"\"schema\":1.5", "schema"},
            {"\"appliance\":\"b1\"", "appliance"}, {"\"appliance\":7", "appliance"},
        };
        for (String[] e : schema) {
            c.add(new Bad("selftest", cmd(e[0]), true, e[1]));
        }
        // ---- verbs that are not
        for (String v : new String[] {"nosuch", "RUN", "Status", "run2", "run-", "exec", "shell", "reboot", "_",
                "v".repeat(200), "stat%us", "..", "x.y"}) {
            c.add(new Bad(v, cmd(""), true, "verb"));
        }
        // ---- run
        String[][] run = {
            {"", "probe"}, {"\"probe\":7", "probe"}, {"\"probe\":\"\"", "probe"},
            {"\"probe\":\"nosuch\",\"parameters\":{\"duration\":\"1s\"}", "nosuch"},
            {"\"probe\":[\"timer\"]", "probe"}, {"\"probe\":{}", "probe"}, {"\"probe\":null", "probe"},
            {"\"probe\":\"" + "p".repeat(100_000) + "\",\"parameters\":{\"duration\":\"1s\"}", "probe"},
            {"\"probe\":\"timer\"", "duration"}, {"\"probe\":\"timer\",\"parameters\":{}", "duration"},
            {"\"probe\":\"timer\",\"parameters\":7", "parameters"},
            {"\"probe\":\"timer\",\"parameters\":[]", "parameters"},
            {"\"probe\":\"timer\",\"parameters\":\"duration=1s\"", "parameters"},
            {"\"probe\":\"timer\",\"run\":\"a b\",\"parameters\":{\"duration\":\"1s\"}", "run"},
            {"\"probe\":\"timer\",\"run\":\"../../x\",\"parameters\":{\"duration\":\"1s\"}", "run"},
            {"\"probe\":\"timer\",\"run\":7,\"parameters\":{\"duration\":\"1s\"}", "run"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"thresholds\":7", "thresholds"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"thresholds\":{\"max_latency_us\":\"x\"}", "max_latency_us"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"thresholds\":{\"max_latency_us\":-2}", "max_latency_us"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"thresholds\":{\"nosuch\":1}", "nosuch"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":7", "loads"},
            // Issue 31: an unknown field of the run command was ignored, and the run started.
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"treshold\":{\"max_latency_us\":5}", "treshold"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":\"pipe\"", "loads"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[7]", "loads"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"nosuch\"]", "nosuch"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"\"]", "load"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"pipe:mode=zzz\"]", "mode"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"pipe:count=-1\"]", "count"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"pipe:ends=many\"]", "ends"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"pipe:nosuch=1\"]", "nosuch"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"pipe:priority=100\"]", "priority"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"fairness:workers=0\"]", "workers"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"fairness:work=0ms\"]", "work"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"blockio\"]", "path"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"blockio:path=/nonexistent\"]", "path"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"blockio:path=/tmp\"]", "path"},
            {"\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\"},\"loads\":[\"blockio:path=/etc/hostname,bs=100\"]", "bs"},
        };
        for (String[] e : run) {
            c.add(new Bad("run", cmd(e[0]), true, e[1]));
        }
        // run parameters, one bad value each
        String[][] parameters = {
            {"duration", "\"\""}, {"duration", "\"abc\""}, {"duration", "\"-1s\""}, {"duration", "\"1x\""},
            {"duration", "\"150000000m\""}, {"duration", "\"1e99s\""}, {"duration", "[]"}, {"duration", "{}"},
            {"duration", "\"9223372036854775807d\""}, {"duration", "true"},
            {"interval_us", "0"}, {"interval_us", "-1"}, {"interval_us", "\"x\""}, {"interval_us", "1.5"},
            {"interval_us", "1e30"}, {"interval_us", "[]"},
            {"priority", "-1"}, {"priority", "100"}, {"priority", "\"x\""}, {"priority", "1.5"},
            {"policy", "\"deadline\""}, {"policy", "7"}, {"policy", "\"\""},
            {"cpus", "[]"}, {"cpus", "[0.5]"}, {"cpus", "[-1]"}, {"cpus", "[99]"}, {"cpus", "[\"a\"]"},
            {"cpus", "[0,0]"}, {"cpus", "7"}, {"cpus", "\"x\""}, {"cpus", "[[0]]"}, {"cpus", "[null]"},
            {"cpus", "\"0-99\""}, {"cpus", "{}"}, {"mlock", "\"yes\""}, {"mlock", "1"}, {"options", "7"},
            {"cpus", "[2147483648]"},
            {"histogram_us", "0"}, {"histogram_us", "-1"}, {"histogram_us", "100000000"}, {"histogram_us", "\"x\""},
            {"warmup", "\"x\""}, {"warmup", "\"-1s\""}, {"warmup", "[]"},
            {"loops", "-1"}, {"loops", "\"x\""},
            {"nosuch", "1"}, {"dur ation", "\"1s\""},
        };
        for (String[] p : parameters) {
            String params = p[0].equals("duration") ? "\"duration\":" + p[1]
                    : "\"duration\":\"1s\",\"" + p[0] + "\":" + p[1];
            // "CPU 99 does not exist" is about cpus too.
            c.add(new Bad("run", cmd("\"probe\":\"timer\",\"parameters\":{" + params + "}"), true,
                    p[0].equals("cpus") ? "cpu" : p[0]));
        }
        // ---- plan (inline, by name)
        String plan = "\"rtbox_plan\":1,\"name\":\"c\",\"probe\":\"timer\",\"duration\":\"1s\"";
        String[][] plans = {
            {"", "plan"}, {"\"plan\":7", "plan"}, {"\"plan\":\"quick\"", "plan"}, {"\"plan\":[]", "plan"},
            {"\"plan\":{}", "rtbox_plan"}, {"\"plan\":{\"rtbox_plan\":2}", "rtbox_plan"},
            {"\"plan\":{" + plan + ",\"cells\":[]}", "cells"},
            {"\"plan\":{" + plan + ",\"cells\":7}", "cells"}, {"\"plan\":{" + plan + ",\"cells\":[7]}", "cells"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"duration\":\"x\"}]}", "duration"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"probe\":\"nosuch\"}]}", "nosuch"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"loads\":[\"pipe:mode=zzz\"]}]}", "mode"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"priority\":100}]}", "priority"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"parameters\":{\"cpus\":[0,0]}}]}", "CPU 0"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"cpus\":[0]}]}", "cpus"},
            {"\"plan\":{" + plan + ",\"cells\":[{\"name\":\"a\",\"nosuch\":1}]}", "nosuch"},
            {"\"plan\":{" + plan + ",\"thresholds\":{\"max_us\":-1},\"cells\":[{\"name\":\"a\"}]}", "max_us"},
            {"\"plan\":{" + plan.replace("\"1s\"", "\"150000000m\"") + ",\"cells\":[{\"name\":\"a\"}]}", "duration"},
            {"\"plan\":{" + plan + ",\"matrix\":{\"load\":{" + String.join(",", java.util.stream.IntStream
                    .rangeClosed(1, 1001).mapToObj(i -> "\"l" + i + "\":[\"pipe:count=" + i + "\"]").toList())
                    + "}},\"cells\":[{\"name\":\"a\"}]}", "1000"},
            {"\"name\":\"nosuch\"", "nosuch"}, {"\"name\":\"../etc/passwd\"", "name"}, {"\"name\":7", "name"},
            {"\"name\":\"\"", "name"}, {"\"name\":\"a/b\"", "name"},
        };
        for (String[] e : plans) {
            c.add(new Bad("plan", cmd(e[0]), true, e[1]));
        }
        // ---- results, stop
        for (String[] e : new String[][] {{"\"run\":\"a b\"", "run"}, {"\"run\":7", "run"}, {"\"run\":\"nosuch\"", "nosuch"},
                {"\"run\":\"../x\"", "run"}, {"\"run\":\"" + "r".repeat(200) + "\"", "run"}, {"\"run\":{}", "run"}}) {
            c.add(new Bad("results", cmd(e[0]), true, e[1]));
        }
        for (String[] e : new String[][] {{"", "run"}, {"\"run\":\"nosuch\"", "run"}, {"\"run\":7", "run"},
                {"\"run\":\"a b\"", "run"}}) {
            c.add(new Bad("stop", cmd(e[0]), true, e[1]));
        }
        // ---- bundles: install, update, uninstall
        String zeros = "\"sha256\":\"" + "0".repeat(64) + "\"";
        String[][] install = {
            {"", "sha256"}, {zeros, "url"}, {"\"url\":\"ftp://x/y.jar\"," + zeros, "url"},
            {"\"url\":7," + zeros, "url"}, {"\"url\":\"file:///nonexistent.jar\"," + zeros, "nonexistent"},
            {"\"url\":\"http://127.0.0.1:1/x.jar\"," + zeros, "127.0.0.1:1"}, {"\"data\":\"!!!\"," + zeros, "data"},
            {"\"data\":7," + zeros, "data"}, {"\"data\":\"AAAA\"", "sha256"}, {"\"data\":\"AAAA\",\"sha256\":\"abc\"", "sha256"},
            {"\"data\":\"AAAA\",\"sha256\":7", "sha256"}, {"\"data\":\"AAAA\"," + zeros, "SHA-256"},
            {"\"data\":\"AAAA\",\"url\":\"file:///x\"," + zeros, "url"},
        };
        for (String[] e : install) {
            c.add(new Bad("install", cmd(e[0]), true, e[1]));
            c.add(new Bad("update", cmd("\"bundle\":\"rtbox.workload.pipe\"" + (e[0].isEmpty() ? "" : "," + e[0])),
                    true, e[1]));
        }
        for (String[] e : new String[][] {{"", "bundle"}, {"\"bundle\":\"nosuch\"", "nosuch"}, {"\"bundle\":99999", "99999"},
                {"\"bundle\":\"rtbox.mqtt\"", "rtbox.mqtt"}, {"\"bundle\":\"rtbox.os\"", "rtbox.os"},
                {"\"bundle\":\"org.osgi.util.promise\"", "org.osgi.util.promise"}, {"\"bundle\":0", "0"},
                {"\"bundle\":\"org.apache.felix.scr\"", "org.apache.felix.scr"}, {"\"bundle\":{}", "bundle"},
                {"\"bundle\":-1", "-1"}, {"\"bundle\":\"rtbox.plan\"", "rtbox.plan"}}) {
            c.add(new Bad("uninstall", cmd(e[0]), true, e[1]));
            if (!e[0].isEmpty()) {
                c.add(new Bad("update", cmd(e[0] + ",\"data\":\"AAAA\"," + zeros), true, e[1]));
            }
        }
        // ---- get-config, set-config
        for (String[] e : new String[][] {{"", "pid"}, {"\"pid\":7", "pid"}, {"\"pid\":\"\"", "pid"},
                {"\"pid\":\"nosuch.pid\"", "nosuch.pid"}, {"\"pid\":{}", "pid"}}) {
            c.add(new Bad("get-config", cmd(e[0]), true, e[1]));
        }
        for (String[] e : new String[][] {{"", "pid"}, {"\"pid\":7", "pid"}, {"\"pid\":\"rtbox.x\"", "properties"},
                {"\"pid\":\"rtbox.x\",\"properties\":{}", "properties"}, {"\"pid\":\"rtbox.x\",\"properties\":7", "properties"},
                {"\"pid\":\"rtbox.x\",\"properties\":{\"service.pid\":\"y\"}", "service.pid"},
                {"\"pid\":\"rtbox.x\",\"properties\":{\"felix.fileinstall.filename\":\"y\"}", "felix.fileinstall.filename"},
                {"\"pid\":\"rtbox.x\",\"properties\":{\"component.name\":\"y\"}", "component.name"},
                {"\"pid\":\"rtbox.x\",\"properties\":{\"k\":{}}", "k"},
                {"\"pid\":\"rtbox.x\",\"properties\":{\"k\":[{}]}", "k"},
                // Issue 31: only rtbox's own described PIDs and properties, never the appliance's identity.
                {"\"pid\":\"../../..\",\"properties\":{\"k\":1}", "../../.."},
                {"\"pid\":\"a)(b=*\",\"properties\":{\"k\":1}", "a)(b=*"},
                {"\"pid\":\"org.apache.felix.fileinstall\",\"properties\":{\"k\":1}", "org.apache.felix.fileinstall"},
                {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"appliance\":\"rel9\"}", "appliance"},
                {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"username\":\"rel9\"}", "username"},
                {"\"pid\":\"rtbox.mqtt\",\"properties\":{\"nosuch\":1}", "nosuch"}}) {
            c.add(new Bad("set-config", cmd(e[0]), true, e[1]));
        }
        return c;
    }

    private JsonObject answer(Bad b) throws Exception {
        int before = control.all(m -> m.topic().equals("rtbox/v1/up/a1/reply/none")).size();
        control.client.publish("rtbox/v1/down/a1/cmd/" + b.verb(), b.payload().getBytes(
                java.nio.charset.StandardCharsets.UTF_8), 1, false);
        if (b.hasRequestId()) {
            String id = b.payload().substring(b.payload().indexOf("\"requestId\":\"") + 13);
            id = id.substring(0, id.indexOf('"'));
            ControlRoom.Received r = control.reply(A, id, 15_000);
            return r == null ? null : r.json();
        }
        long end = System.currentTimeMillis() + 15_000;
        while (System.currentTimeMillis() < end) {
            List<ControlRoom.Received> none = control.all(m -> m.topic().equals("rtbox/v1/up/a1/reply/none"));
            if (none.size() > before) {
                return none.get(before).json();
            }
            Thread.sleep(5);
        }
        return null;
    }

    /** What only a library or the JVM writes: a class name, Gson's advice, a stack frame. */
    static final java.util.regex.Pattern LIBRARY_TEXT = java.util.regex.Pattern.compile(
            "\\b(java|javax|com\\.google|org\\.osgi|org\\.apache|org\\.eclipse)(\\.[a-z0-9]+)+\\.[A-Z]|[A-Za-z]+Exception\\b"
                    + "|JsonReader|setStrictness|\\tat ");

    /** The JIT compiles and the code cache fills over the first passes: the footprint is compared after them. */
    static final int WARM_UP_PASSES = 2, PASSES = 4;

    /** Bundle swaps over MQTT after the corpus: updates of rtbox.workload.pipe, two versions in turn. */
    static final int WARM_UP_SWAPS = 200, SWAPS = 100;

    @Test
    void everyBadCommandIsAnswered4xxNamingTheProblemAndTheApplianceKeepsServing() throws Exception {
        serve(false);
        List<Bad> corpus = corpus();
        assertTrue(corpus.size() >= 200, corpus.size() + " bad commands");
        Footprint start = Footprint.afterGc(rtbox.pid());
        Footprint first = null;
        List<String> wrong = new ArrayList<>();
        List<String> passes = new ArrayList<>();
        for (int pass = 0; pass < PASSES; pass++) {
            int n = 0;
            for (Bad b : corpus()) {
                JsonObject r = answer(b);
                if (r == null) {
                    wrong.add("no reply: " + b);
                } else {
                    int code = r.get("code").getAsInt();
                    String message = r.get("message").getAsString();
                    if (code < 400 || code >= 500 || !message.toLowerCase(java.util.Locale.ROOT).contains(
                            b.names().toLowerCase(java.util.Locale.ROOT))) {
                        wrong.add(code + " '" + (message.length() > 300 ? message.substring(0, 300) : message)
                                + "' (wanted a 4xx naming '" + b.names() + "'): " + b);
                    }
                    // Issue 31: no library or class text (Gson's advice, java.net.ConnectException) in a reply.
                    if (LIBRARY_TEXT.matcher(message).find()) {
                        wrong.add("library text in '" + (message.length() > 300 ? message.substring(0, 300) : message)
                                + "': " + b);
                    }
                    if (code == 200 && (b.verb().equals("run") || b.verb().equals("plan"))) {
                        // Accepted: stop it, so that the rest of the corpus is not answered 409 for it.
                        answer(new Bad("stop", cmd(""), true, ""));
                        Await.until(30_000, () -> "a1 still busy 30 s after the stop of " + b, () -> {
                            JsonObject s = answer(new Bad("status", cmd(""), true, ""));
                            return s != null && s.get("code").getAsInt() == 200
                                    && !s.getAsJsonObject("body").get("busy").getAsBoolean();
                        });
                    }
                }
                if (++n % 10 == 0) {
                    JsonObject s = answer(new Bad("status", cmd(""), true, ""));
                    if (s == null || s.get("code").getAsInt() != 200) {
                        wrong.add("status after " + b + ": " + s);
                    }
                }
            }
            Footprint f = Footprint.afterGc(rtbox.pid());
            passes.add("pass " + (pass + 1) + ": " + f);
            if (pass == WARM_UP_PASSES - 1) {
                first = f;
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + corpus.size() + " wrong:\n" + String.join("\n", wrong));
        Footprint corpusEnd = Footprint.afterGc(rtbox.pid());
        String figures = String.format("before the corpus %s; after pass %d %s; after pass %d %s (%d commands a pass,"
                + " each footprint after jcmd GC.run; %s)", start, WARM_UP_PASSES, first, PASSES, corpusEnd,
                corpus.size(), String.join("; ", passes));
        System.out.println("MqttCorpusIT: corpus: " + figures);
        assertTrue(first.within10Percent(corpusEnd), "the corpus: " + figures);
        assertTrue(String.join("\n", rtbox.err).indexOf("OutOfMemoryError") < 0, "an OutOfMemoryError");

        // 100 swaps of a workload bundle over MQTT, as the control room does it (update with the jar's bytes).
        Path original = WorkloadSwapIT.pipeJar();
        String[] versions = new String[2];
        for (int i = 0; i < 2; i++) {
            byte[] jar = WorkloadSwapIT.pipeVersion(original, "0.2." + (i + 1) + ".swap");
            versions[i] = "\"bundle\":\"rtbox.workload.pipe\",\"data\":\""
                    + java.util.Base64.getEncoder().encodeToString(jar) + "\",\"sha256\":\"" + java.util.HexFormat.of()
                            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(jar)) + "\"";
        }
        // The first swaps load and compile the update path (jar reading, hashing, resolving), as the
        // first passes of the corpus do: the footprint is compared from after them. Measured every
        // 50 swaps up to 600: RSS 126, 140, 151, 166, 163, 164, 165 ... 165, 173 MB, metaspace used
        // 13.1, 14.7, 15.3, 15.7, 16.0 ... 16.8 MB, live heap 6-8 MB throughout: it levels off
        // after some 150 swaps. Measured again on 4 Dec, every 50 swaps to 300: RSS 163, 166, 175,
        // 169, 170, 170 MB, metaspace used 16.1, 16.4, 16.8, 17.0, 17.2, 17.3 MB, then 172 MB after
        // 100 more. A CI run compared 100 against 200 swaps, still in the rise (163.5 to 182.6 MB,
        // +11.7 %): the warm-up is 200 swaps, past it.
        for (int i = 0; i < WARM_UP_SWAPS; i++) {
            JsonObject r = answer(new Bad("update", cmd(versions[i % 2]), true, ""));
            assertTrue(r != null && r.get("code").getAsInt() == 200, "warm-up swap " + (i + 1) + ": " + r);
        }
        Footprint warm = Footprint.afterGc(rtbox.pid());
        long t0 = System.nanoTime();
        for (int i = 0; i < SWAPS; i++) {
            JsonObject r = answer(new Bad("update", cmd(versions[i % 2]), true, ""));
            assertTrue(r != null && r.get("code").getAsInt() == 200, "swap " + (i + 1) + ": " + r);
        }
        double swapMs = (System.nanoTime() - t0) / 1e6 / SWAPS;
        // An update's reply is the bundle's (docs/mqtt.md); its workload is back once SCR has activated the
        // component again, a moment later: awaited. (The status sent at once found it missing when a
        // command's round trip became 2 ms instead of 80: the tests' sockets without Nagle's delay.)
        JsonObject[] status = new JsonObject[1];
        Await.until(10_000, () -> "the pipe workload after the swaps: " + status[0], () -> {
            status[0] = answer(new Bad("status", cmd(""), true, ""));
            return status[0] != null && status[0].getAsJsonObject("body").getAsJsonArray("workloads").toString()
                    .contains("\"pipe\"");
        });
        Footprint swapped = Footprint.afterGc(rtbox.pid());
        String swapFigures = String.format("after the corpus %s; after %d warm-up swaps %s; after %d more swaps of"
                + " rtbox.workload.pipe over MQTT %s (%.0f ms a swap; after jcmd GC.run)", corpusEnd, WARM_UP_SWAPS,
                warm, SWAPS, swapped, swapMs);
        System.out.println("MqttCorpusIT: swaps: " + swapFigures);
        assertTrue(warm.within10Percent(swapped), swapFigures);
        assertTrue(String.join("\n", rtbox.err).indexOf("OutOfMemoryError") < 0, "an OutOfMemoryError");
    }
}
