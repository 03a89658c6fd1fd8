package rtbox.ctl.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.result.Verdict;
import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;
import rtbox.json.StrictJson;
import rtbox.mqtt.protocol.Tls;

/**
 * {@code rtbox ctl gate}: docs/ci.md's gate ({@code docs/ci/fat-gate.sh}) as a command, for a
 * CI runner with rtbox rather than curl and jq. The same steps through the control room's
 * HTTP API with an API token: start the plan on the appliance with the controller's serial and
 * model, wait for the verdict with the long poll, write junit.xml, run.json, result.json and
 * record.json, exit with the verdict's code. The token comes from a file or the environment,
 * never from an option: a command line is visible to every local user.
 */
@Command(name = "gate", description = "Start a plan through the control room's API (an API token), wait for its"
        + " verdict, keep its JUnit XML, run and record; exit 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 no verdict"
        + " (docs/ci.md).")
final class CtlGate implements Callable<Integer> {
    private static final int ERROR = Verdict.Outcome.ERROR.exitCode();
    private static final int LONG_POLL_S = 50;

    @Spec
    CommandSpec spec;
    @Option(names = "--control", paramLabel = "URL", defaultValue = "${env:RTBOX_URL:-}",
            description = "The control room, e.g. https://control:8480 (default \\$RTBOX_URL).")
    String control;
    @Option(names = "--token-file", paramLabel = "FILE", defaultValue = "${env:RTBOX_TOKEN_FILE:-}",
            description = "A file holding the API token (default \\$RTBOX_TOKEN_FILE, else the token in \\$RTBOX_TOKEN).")
    String tokenFile;
    @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:RTBOX_CA:-}",
            description = "For an HTTPS control room with a CA of its own: its certificates (PEM) or trust store.")
    String ca;
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "${env:RTBOX_TIMEOUT:-3600}",
            description = "How long to wait for the verdict (default \\$RTBOX_TIMEOUT or ${DEFAULT-VALUE}).")
    long timeoutS;
    @Option(names = "--sign-off", description = "Issue the run's acceptance record when the control room did not.")
    boolean signOff;
    @Option(names = "--out", paramLabel = "DIR", defaultValue = "rtbox-fat",
            description = "Where junit.xml, run.json, result.json and record.json go (default ${DEFAULT-VALUE}).")
    Path out;
    @Parameters(index = "0", paramLabel = "APPLIANCE")
    String appliance;
    @Parameters(index = "1", paramLabel = "SERIAL")
    String serial;
    @Parameters(index = "2", paramLabel = "MODEL")
    String model;
    @Parameters(index = "3", paramLabel = "PLAN", description = "A plan of the control room's library, or a plan file.")
    String plan;

    private HttpClient http;
    private String authorization;

    /** A refusal of the gate itself: exit 2 with this text. */
    static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1;

        Stop(String message) {
            super(message);
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        try {
            return gate(o, err);
        } catch (Stop e) {
            err.println("rtbox ctl gate: " + e.getMessage());
            return ERROR;
        }
    }

    private int gate(PrintWriter o, PrintWriter err) throws Exception {
        if (control == null || control.isEmpty()) {
            throw new Stop("give --control URL or set RTBOX_URL");
        }
        String token = token();
        authorization = "Bearer " + token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20));
        if (ca != null && !ca.isEmpty()) {
            b.sslContext(Tls.context(ca, null, null, null));
        }
        http = b.build();
        Files.createDirectories(out);
        for (String f : new String[] {"junit.xml", "run.json", "result.json", "record.json"}) {
            Files.deleteIfExists(out.resolve(f));
        }

        JsonObject start = new JsonObject();
        Path planFile = Path.of(plan);
        if (Files.isRegularFile(planFile)) {
            try {
                start.add("plan", StrictJson.parse(Files.readString(planFile)));
            } catch (JsonProblem e) {
                throw new Stop(plan + " is not a JSON plan: " + e.getMessage());
            }
        } else {
            start.addProperty("plan", plan);
        }
        JsonObject target = new JsonObject();
        target.addProperty("appliance", appliance);
        target.addProperty("serial", serial);
        target.addProperty("model", model);
        JsonArray targets = new JsonArray();
        targets.add(target);
        start.add("targets", targets);
        JsonObject started = json(expect(200, "start", call("POST", "/starts", start)));
        JsonObject s = started.getAsJsonArray("starts").get(0).getAsJsonObject();
        if (whole(s, "code", "$.starts[0].code") != 200) {
            throw new Stop("the appliance " + appliance + " did not start the plan (" + s.get("code") + "): "
                    + str(s, "message"));
        }
        String run = s.get("run").getAsString();
        o.println("rtbox ctl gate: " + appliance + " runs " + run + " (serial " + serial + ", model " + model
                + "); waiting up to " + timeoutS + " s for its verdict");
        o.flush();

        String runPath = "/runs/" + enc(appliance) + "/" + enc(run);
        long end = System.nanoTime() + timeoutS * 1_000_000_000L;
        JsonObject state;
        while (true) {
            long left = (end - System.nanoTime()) / 1_000_000_000L;
            if (left <= 0) {
                throw new Stop("no verdict for " + run + " within " + timeoutS + " s (--timeout)");
            }
            state = json(expect(200, "wait for " + run, call("GET", runPath + "/wait?timeout="
                    + Math.min(left, LONG_POLL_S), null)));
            if (state.get("done").getAsBoolean()) {
                break;
            }
        }
        String verdict = str(state, "verdict");
        o.println("rtbox ctl gate: " + run + ": " + verdict + " (" + str(state, "reason") + ")");

        Files.writeString(out.resolve("junit.xml"), expect(200, "junit.xml", call("GET", runPath + "/junit.xml", null)).body());
        Files.writeString(out.resolve("run.json"), expect(200, "run", call("GET", runPath, null)).body());
        Files.writeString(out.resolve("result.json"), expect(200, "result.json", call("GET", runPath + "/result.json",
                null)).body());
        Long id = record(run);
        if (id == null && signOff) {
            JsonObject sign = new JsonObject();
            sign.addProperty("appliance", appliance);
            sign.addProperty("run", run);
            sign.addProperty("comment", "signed off by rtbox ctl gate");
            HttpResponse<String> r = call("POST", "/records", sign);
            if (r.statusCode() == 201) {
                id = whole(json(r), "id", "$.id");
            } else if (r.statusCode() == 403 || r.statusCode() == 409) {
                // Refused (a viewer token, no self-test before the run, issued meanwhile): said; the exit stays the verdict's.
                id = record(run);
                if (id == null) {
                    err.println("rtbox ctl gate: no record of " + run + ": " + error(r));
                }
            } else {
                expect(201, "record of " + run, r);
            }
        }
        if (id != null) {
            String record = expect(200, "record " + id, call("GET", "/records/" + id, null)).body();
            Files.writeString(out.resolve("record.json"), record);
            o.println("rtbox ctl gate: record " + id + ", SHA-256 " + str(parse(record).getAsJsonObject(), "sha256"));
        } else if (!signOff) {
            o.println("rtbox ctl gate: no record of " + run + " yet (sign it off on its run page, or --sign-off)");
        }
        try {
            return Verdict.Outcome.valueOf(verdict).exitCode();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new Stop(run + " ended without a verdict rtbox knows ('" + verdict + "')");
        }
    }

    /** The token from --token-file / RTBOX_TOKEN_FILE, else RTBOX_TOKEN. */
    private String token() throws IOException {
        String t;
        if (tokenFile != null && !tokenFile.isEmpty()) {
            Path f = Path.of(tokenFile);
            if (!Files.isReadable(f)) {
                throw new Stop("cannot read the token file " + tokenFile);
            }
            t = Files.readString(f).strip();
        } else {
            t = System.getenv("RTBOX_TOKEN");
        }
        if (t == null || t.isEmpty()) {
            throw new Stop("give --token-file FILE (or RTBOX_TOKEN_FILE) holding an API token, or set RTBOX_TOKEN");
        }
        return t;
    }

    private Long record(String run) throws IOException, InterruptedException {
        JsonObject list = json(expect(200, "records", call("GET", "/records?serial=" + enc(serial) + "&limit=1000",
                null)));
        JsonArray records = list.getAsJsonArray("records");
        for (int i = 0; i < records.size(); i++) {
            JsonObject r = records.get(i).getAsJsonObject();
            if (appliance.equals(str(r, "appliance")) && run.equals(str(r, "run"))) {
                return whole(r, "id", "$.records[" + i + "].id");
            }
        }
        return null;
    }

    private HttpResponse<String> call(String method, String path, JsonObject body) throws IOException,
            InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(control.replaceAll("/+$", "") + "/api/v1" + path))
                .timeout(Duration.ofSeconds(120)).header("Authorization", authorization)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Stop(method + " " + path + ": the control room at " + control + " did not answer ("
                    + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()) + ")");
        }
    }

    private static HttpResponse<String> expect(int status, String what, HttpResponse<String> r) {
        if (r.statusCode() != status) {
            throw new Stop(what + ": HTTP " + r.statusCode() + ": " + error(r));
        }
        return r;
    }

    private static String error(HttpResponse<String> r) {
        try {
            return str(StrictJson.parse(r.body()).getAsJsonObject(), "error");
        } catch (JsonProblem | RuntimeException e) {
            return r.body();
        }
    }

    private static JsonObject json(HttpResponse<String> r) {
        JsonElement e = parse(r.body());
        if (!e.isJsonObject()) {
            throw new Stop("the control room answered " + StrictJson.show(e) + " where a JSON object was expected");
        }
        return e.getAsJsonObject();
    }

    /** The control room's answer, read by rtbox.json's strict reader (as the control room reads what it is sent). */
    static JsonElement parse(String text) {
        try {
            return StrictJson.parse(text);
        } catch (JsonProblem p) {
            throw new Stop("the control room's answer does not read: " + p.getMessage());
        }
    }

    /** A whole number of the answer, exactly (2.5 is not record 2): a refusal naming {@code path} otherwise. */
    static long whole(JsonObject o, String key, String path) {
        try {
            return JsonFields.whole(o.get(key), path);
        } catch (JsonProblem p) {
            throw new Stop("the control room's answer: " + p.getMessage());
        }
    }

    private static String str(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
