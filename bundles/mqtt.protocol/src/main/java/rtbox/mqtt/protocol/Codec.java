package rtbox.mqtt.protocol;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.stream.JsonWriter;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * Over 400 lines on purpose: the writer and the reader of each message stay side by side
 * in this one class, so that a member changes in one place for both directions (the point
 * of the protocol bundle); the JSON mechanics are in Json.
 *
 * <p>Writes and reads every message of rtbox's protocol (docs/mqtt.md, schema 1). Writing
 * gives compact UTF-8 JSON with a flat envelope ({@code schema}, {@code type},
 * {@code timestamp}, {@code appliance}, and {@code run}, {@code sequence} for a run's
 * messages) and the figures at the top level in microseconds, so that Grafana, Node-RED or
 * MQTT Explorer read them without code. Reading is strict (RFC 8259 JSON, each required
 * member present with its type, the envelope consistent with the topic) and says what was
 * wrong in a {@link ProtocolException} naming the member; members it does not know are
 * ignored, so that a newer writer's additions do not break an older reader.
 */
public final class Codec {
    /** The payloads' shape version; a reader checks it before anything else. */
    public static final int SCHEMA = 1;

    private static final String[] ENVELOPE = {"requestId", "expires", "appliance", "schema"};

    private Codec() {
    }

    // ---- writing ----

    /** The payload of {@code m}. */
    public static byte[] encode(Message m) {
        return Json.write(toJson(m));
    }

    /**
     * Writes a run's full report straight into the payload (since 1.4): what a
     * {@link Result}'s or a {@link Cell}'s {@code report} member would hold, as one JSON
     * object. It must keep the payload's rules: null members are left off (the writer given
     * does so), and a number that is not finite is written as null (a member then left off,
     * null in an array), which the writer does not do for it.
     */
    @FunctionalInterface
    public interface ReportWriter {
        void write(JsonWriter w) throws IOException;
    }

    /**
     * The payload of {@code m} with its {@code report} member written by {@code report}
     * (since 1.4), byte for byte what {@link #encode(Message)} gives for the same message with
     * the report as a tree. A report is mostly histogram counts (tens of thousands, nearly
     * all 0); a tree of them is a JsonPrimitive per count, built and then walked, which took
     * about 13 ms of a result's 20-26 ms way to a subscriber on a PC. {@code m}'s own
     * {@code report} must be null.
     */
    public static byte[] encode(RunMessage m, ReportWriter report) {
        if (report(m) != null) {
            throw new IllegalArgumentException("the message carries its report already");
        }
        // A stand-in object in the report's place, recognised by identity as the tree is written.
        JsonObject placeholder = new JsonObject();
        JsonObject o = m instanceof Result ? result((Result) m, placeholder)
                : m instanceof Cell ? cell((Cell) m, placeholder) : toJson(m);
        return Json.write(o, placeholder, report);
    }

    private static JsonObject report(RunMessage m) {
        return m instanceof Result ? ((Result) m).report() : m instanceof Cell ? ((Cell) m).report() : null;
    }

    /**
     * The payload of the broadcast on {@link Topics#ANNOUNCE} (since 1.3):
     * {@code {"schema":1,"type":"announce","timestamp":...,"from":FROM}}, {@code from} naming
     * the control room that asks (for a person reading the broker's traffic; appliances do not
     * read it).
     */
    public static byte[] announce(Instant timestamp, String from) {
        JsonObject o = new JsonObject();
        o.addProperty("schema", SCHEMA);
        o.addProperty("type", "announce");
        o.addProperty("timestamp", str(timestamp));
        o.addProperty("from", from);
        return Json.write(o);
    }

    /** The payload of {@code m} as a JSON object (what {@link #encode} writes). */
    public static JsonObject toJson(Message m) {
        if (m instanceof Status) {
            return status((Status) m);
        }
        if (m instanceof Progress) {
            return progress((Progress) m);
        }
        if (m instanceof Cell) {
            return cell((Cell) m, ((Cell) m).report());
        }
        if (m instanceof Result) {
            return result((Result) m, ((Result) m).report());
        }
        if (m instanceof Reply) {
            return reply((Reply) m);
        }
        return command((Command) m);
    }

    private static JsonObject envelope(String type, Instant timestamp, String appliance) {
        JsonObject o = new JsonObject();
        o.addProperty("schema", SCHEMA);
        o.addProperty("type", type);
        o.addProperty("timestamp", timestamp.toString());
        o.addProperty("appliance", appliance);
        return o;
    }

    private static JsonObject envelope(String type, RunMessage m) {
        JsonObject o = envelope(type, m.timestamp(), m.appliance());
        o.addProperty("run", m.run());
        o.addProperty("sequence", m.sequence());
        return o;
    }

    private static JsonObject status(Status s) {
        JsonObject o = envelope("status", s.timestamp(), s.appliance());
        o.addProperty("state", s.state());
        o.addProperty("since", str(s.since()));
        o.addProperty("busy", s.busy());
        o.addProperty("run", s.run());
        o.addProperty("plan", s.plan());
        o.addProperty("cell", s.cell());
        o.addProperty("cells", s.cells());
        o.addProperty("cell_percent", s.cellPercent());
        o.addProperty("probe", s.probe());
        if (s.probes() != null) {
            o.add("probes", Json.array(s.probes()));
        }
        if (s.workloads() != null) {
            o.add("workloads", Json.array(s.workloads()));
        }
        o.addProperty("outbox_messages", s.outboxMessages());
        o.addProperty("outbox_bytes", s.outboxBytes());
        o.addProperty("rtbox_version", s.rtboxVersion());
        if (s.damaged() != null) {
            o.add("damaged", Json.array(s.damaged()));
        }
        o.addProperty("kernel", s.kernel());
        o.addProperty("preemption", s.preemption());
        o.addProperty("boot_entry", s.bootEntry());
        return o;
    }

    private static JsonObject progress(Progress p) {
        JsonObject o = envelope("progress", p);
        if (p.cell() != null) {
            planCell(o, p.cell());
        } else {
            o.addProperty("probe", p.probe());
        }
        o.addProperty("percent", p.percent());
        return o;
    }

    private static void planCell(JsonObject o, PlanCell c) {
        o.addProperty("kind", "plan");
        o.addProperty("plan", c.plan());
        o.addProperty("cell", c.cell());
        o.addProperty("cells", c.cells());
        o.addProperty("cell_name", c.name());
    }

    private static void outcome(JsonObject o, String probe, Outcome verdict, String reason, boolean complete,
            Instant started, Instant ended, Figures f, JsonElement report) {
        o.addProperty("probe", probe);
        o.addProperty("verdict", verdict.name());
        o.addProperty("reason", reason);
        o.addProperty("complete", complete);
        o.addProperty("started", str(started));
        o.addProperty("ended", str(ended));
        if (f != null) {
            o.addProperty("duration_s", f.durationS());
            o.addProperty("samples", f.samples());
            o.addProperty("min_us", f.minUs());
            o.addProperty("p50_us", f.p50Us());
            o.addProperty("p99_us", f.p99Us());
            o.addProperty("p999_us", f.p999Us());
            o.addProperty("max_us", f.maxUs());
            o.addProperty("overflows", f.overflows());
            o.addProperty("missed_deadlines", f.missedDeadlines());
            o.addProperty("histogram_bucket_us", f.histogramBucketUs());
            o.add("histogram", Json.array(f.histogram()));
            JsonArray threads = new JsonArray();
            for (ThreadFigures t : f.threads()) {
                JsonObject th = new JsonObject();
                th.addProperty("thread", t.thread());
                th.addProperty("cpu", t.cpu());
                th.addProperty("policy", t.policy());
                th.addProperty("priority", t.priority());
                th.addProperty("samples", t.samples());
                th.addProperty("min_us", t.minUs());
                th.addProperty("avg_us", t.avgUs());
                th.addProperty("p50_us", t.p50Us());
                th.addProperty("p99_us", t.p99Us());
                th.addProperty("p999_us", t.p999Us());
                th.addProperty("max_us", t.maxUs());
                th.addProperty("overflows", t.overflows());
                th.addProperty("missed_deadlines", t.missedDeadlines());
                th.add("histogram", Json.array(t.histogram()));
                th.addProperty("last_us", t.lastUs());
                threads.add(th);
            }
            o.add("threads", threads);
        }
        if (report != null) {
            o.add("report", report);
        }
    }

    private static JsonObject result(Result r, JsonElement report) {
        JsonObject o = envelope("result", r);
        PlanOutcome p = r.plan();
        if (p != null) {
            o.addProperty("kind", "plan");
            o.addProperty("plan", p.plan());
        }
        outcome(o, r.probe(), r.verdict(), r.reason(), r.complete(), r.started(), r.ended(), r.figures(), report);
        if (p != null) {
            o.addProperty("state", p.state());
            o.addProperty("cells_planned", p.cellsPlanned());
            o.addProperty("cells_run", p.cellsRun());
            if (p.cells() != null) {
                JsonArray cells = new JsonArray();
                for (CellLine c : p.cells()) {
                    JsonObject x = new JsonObject();
                    x.addProperty("cell", c.cell());
                    x.addProperty("name", c.name());
                    x.addProperty("sequence", c.sequence());
                    x.addProperty("verdict", c.verdict().name());
                    x.addProperty("max_us", c.maxUs());
                    x.addProperty("missed_deadlines", c.missedDeadlines());
                    x.addProperty("overflows", c.overflows());
                    cells.add(x);
                }
                o.add("cells", cells);
            }
            o.addProperty("description", p.description());
        }
        return o;
    }

    private static JsonObject cell(Cell c, JsonElement report) {
        JsonObject o = envelope("cell", c);
        planCell(o, c.cell());
        outcome(o, c.probe(), c.verdict(), c.reason(), c.complete(), c.started(), c.ended(), c.figures(), report);
        o.addProperty("policy", c.policy());
        o.add("axes", Json.object(c.axes() == null ? Map.of() : c.axes()));
        o.add("loads", Json.array(c.loads() == null ? List.of() : c.loads()));
        o.add("tuner", Json.object(c.tuner() == null ? Map.of() : c.tuner()));
        return o;
    }

    private static JsonObject reply(Reply r) {
        JsonObject o = envelope("reply", r.timestamp(), r.appliance());
        o.addProperty("requestId", r.requestId());
        o.addProperty("verb", r.verb());
        o.addProperty("code", r.code());
        o.addProperty("message", r.message());
        o.add("body", r.body() == null ? new JsonObject() : r.body());
        return o;
    }

    private static JsonObject command(Command c) {
        JsonObject o = new JsonObject();
        o.addProperty("requestId", c.requestId());
        o.addProperty("expires", c.expires().toString());
        o.addProperty("appliance", c.appliance());
        if (c.body() != null) {
            for (Map.Entry<String, JsonElement> e : c.body().entrySet()) {
                if (!o.has(e.getKey())) {
                    o.add(e.getKey(), e.getValue());
                }
            }
        }
        return o;
    }

    private static String str(Instant i) {
        return i == null ? null : i.toString();
    }

    // ---- reading ----

    /**
     * The message on {@code topic}: a command on a {@code down/ID/cmd/VERB} topic, else what
     * its {@code type} says, checked against the topic (the kind, the appliance, the run,
     * the request id must agree). The error names the topic or the member at fault.
     */
    public static Message decode(String topic, byte[] payload) throws ProtocolException {
        Topic t = Topics.parse(topic);
        if (t.kind() == Topic.Kind.COMMAND) {
            return command(t, payload);
        }
        return check(topic, t, read(payload).message());
    }

    /**
     * As {@link #decode(String, byte[])} for what an appliance sends (not a command), with
     * the JSON object it was read from, for a receiver that keeps or forwards members the
     * typed message does not carry (the control room): the payload is parsed once. The
     * object and the message share their nested objects ({@code report}, {@code body}).
     *
     * @since 1.2
     */
    public static Decoded decodeWithJson(String topic, byte[] payload) throws ProtocolException {
        Topic t = Topics.parse(topic);
        if (t.kind() == Topic.Kind.COMMAND) {
            throw new ProtocolException("topic", "'" + topic + "' is a command topic: commands have no type");
        }
        Decoded d = read(payload);
        check(topic, t, d.message());
        return d;
    }

    private static Message check(String topic, Topic t, Message m) throws ProtocolException {
        String type = typeOf(m);
        if (!type.equals(t.kind().name().toLowerCase(java.util.Locale.ROOT))) {
            throw new ProtocolException("$.type", "'" + type + "' on a " + t.kind().name().toLowerCase(
                    java.util.Locale.ROOT) + " topic (" + topic + ")");
        }
        if (!m.appliance().equals(t.appliance())) {
            throw new ProtocolException("$.appliance", "'" + m.appliance() + "' on appliance " + t.appliance()
                    + "'s topic " + topic);
        }
        if (m instanceof RunMessage && !((RunMessage) m).run().equals(t.run())) {
            throw new ProtocolException("$.run", "'" + ((RunMessage) m).run() + "' on run " + t.run() + "'s topic "
                    + topic);
        }
        if (m instanceof Reply) {
            String id = ((Reply) m).requestId();
            if (!(id == null ? Topics.NO_REQUEST_ID : id).equals(t.requestId())) {
                throw new ProtocolException("$.requestId", "'" + id + "' on the reply topic " + topic);
            }
        }
        return m;
    }

    /** As {@link #decode(String, byte[])}, and the message must be a {@code type}. */
    public static <T extends Message> T decode(String topic, byte[] payload, Class<T> type) throws ProtocolException {
        Message m = decode(topic, payload);
        if (!type.isInstance(m)) {
            throw new ProtocolException("$.type", "expected a " + type.getSimpleName().toLowerCase(
                    java.util.Locale.ROOT) + ", got a " + typeOf(m));
        }
        return type.cast(m);
    }

    /**
     * A message the appliance sent, without its topic (a file {@code rtbox ctl --out} kept,
     * say): status, progress, cell, result or reply, as its {@code type} says. Commands have
     * no type: their verb is in their topic ({@link #decode(String, byte[])}).
     */
    public static Message decode(byte[] payload) throws ProtocolException {
        return read(payload).message();
    }

    private static Decoded read(byte[] payload) throws ProtocolException {
        try {
            return read(Json.parse(payload));
        } catch (JsonProblem p) {
            throw Json.problem(p);
        }
    }

    private static Decoded read(JsonElement payload) throws ProtocolException, JsonProblem {
        JsonFields o = JsonFields.of(payload, "$");
        checkSchema(o);
        String type = o.str("type");
        Message m;
        switch (type) {
            case "status": m = status(o); break;
            case "progress": m = progress(o); break;
            case "cell": m = cell(o); break;
            case "result": m = result(o); break;
            case "reply": m = reply(o); break;
            default:
                throw new ProtocolException("$.type", "'" + type + "' is not one of status, progress, cell, result,"
                        + " reply");
        }
        return new Decoded(m, o.object());
    }

    /**
     * A command on {@code topic} ({@code down/ID/cmd/VERB}). A bad envelope is an error on
     * {@code $.requestId}, {@code $.expires}, {@code $.appliance} or {@code $.schema}; when the
     * request id could be read, the error carries it ({@link ProtocolException#requestId()}),
     * so that the receiver can still answer on the right reply topic.
     */
    public static Command decodeCommand(String topic, byte[] payload) throws ProtocolException {
        Topic t = Topics.parse(topic);
        if (t.kind() != Topic.Kind.COMMAND) {
            throw new ProtocolException("topic", "'" + topic + "' is not a command topic (" + Topics.ROOT
                    + "/down/ID/cmd/VERB)");
        }
        return command(t, payload);
    }

    private static Command command(Topic t, byte[] payload) throws ProtocolException {
        JsonElement e = Json.parse(payload);
        if (!e.isJsonObject()) {
            throw new ProtocolException("$", "the command is not a JSON object: " + Json.show(e));
        }
        JsonFields o;
        try {
            o = JsonFields.of(e, "$");
        } catch (JsonProblem p) {
            throw Json.problem(p);
        }
        String requestId = o.has("requestId") && o.object().get("requestId").isJsonPrimitive()
                && o.object().getAsJsonPrimitive("requestId").isString() ? o.object().get("requestId").getAsString() : null;
        String bad = Topics.checkId("requestId", requestId);
        if (bad == null && Topics.NO_REQUEST_ID.equals(requestId)) {
            // Its reply would go where the replies to commands without a usable requestId go (issue 31).
            bad = "requestId '" + Topics.NO_REQUEST_ID + "' is reserved for the replies to commands without a usable one";
        }
        if (bad != null) {
            throw new ProtocolException("$.requestId", (o.has("requestId") && requestId == null
                    ? "expected a string, got " + Json.show(o.object().get("requestId")) : bad.substring("requestId ".length()))
                    + ": every command needs a requestId; the reply goes to " + Topics.reply(t.appliance(),
                            "REQUESTID"));
        }
        try {
            checkSchema(o);
            String to = o.optStr("appliance");
            if (to != null && !to.equals(t.appliance())) {
                throw new ProtocolException("$.appliance", "the command is addressed to appliance '" + to
                        + "' but was sent to '" + t.appliance() + "' (" + Topics.command(t.appliance(), t.verb())
                        + ")");
            }
            Instant expires = expires(o);
            JsonObject body = o.object().deepCopy();
            for (String k : ENVELOPE) {
                body.remove(k);
            }
            return new Command(t.appliance(), t.verb(), requestId, expires, body);
        } catch (ProtocolException x) {
            throw x.withRequestId(requestId);
        } catch (JsonProblem x) {
            throw Json.problem(x).withRequestId(requestId);
        }
    }

    private static Instant expires(JsonFields o) throws ProtocolException, JsonProblem {
        if (!o.has("expires")) {
            throw new ProtocolException("$.expires", "is missing: give the time after which the command must not"
                    + " run, e.g. \"expires\": \"" + Instant.now().plusSeconds(60).toString().replaceFirst(
                            "\\.\\d+Z$", "Z") + "\"");
        }
        JsonElement e = o.object().get("expires");
        String s = e.isJsonPrimitive() ? e.getAsString() : e.toString();
        try {
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
                return Instant.ofEpochMilli(o.lng("expires"));
            }
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
                return s.matches("\\d{1,18}") ? Instant.ofEpochMilli(Long.parseLong(s)) : Instant.parse(s);
            }
        } catch (DateTimeParseException | NumberFormatException x) {
            // said below
        }
        throw new ProtocolException("$.expires", "'" + s + "' is not an ISO-8601 time such as 2026-01-01T12:00:00Z"
                + " or epoch milliseconds");
    }

    private static void checkSchema(JsonFields o) throws ProtocolException, JsonProblem {
        if (o.object().has("schema")) {
            JsonElement s = o.object().get("schema");
            if (!s.isJsonPrimitive() || !s.getAsJsonPrimitive().isNumber() || !"1".equals(
                    new java.math.BigDecimal(s.getAsString()).stripTrailingZeros().toPlainString())) {
                throw new ProtocolException("$.schema", Json.show(s) + " is not understood: this reads schema "
                        + SCHEMA);
            }
        } else if (o.has("type")) {
            throw new ProtocolException("$.schema", "is missing (expected " + SCHEMA + ")");
        }
    }

    private static String typeOf(Message m) {
        return m instanceof Status ? "status" : m instanceof Progress ? "progress" : m instanceof Cell ? "cell"
                : m instanceof Result ? "result" : m instanceof Reply ? "reply" : "command";
    }

    private static Status status(JsonFields o) throws ProtocolException, JsonProblem {
        String appliance = Topics.requireId("$.appliance", o.str("appliance"));
        String state = o.str("state");
        if (!Status.ONLINE.equals(state) && !Status.OFFLINE.equals(state)) {
            throw new ProtocolException("$.state", "'" + state + "' is neither online nor offline");
        }
        boolean online = Status.ONLINE.equals(state);
        return new Status(appliance, o.instant("timestamp"), state, o.optInstant("since"),
                online ? Boolean.valueOf(o.bool("busy")) : o.optBool("busy"), o.optStr("run"), o.optStr("probe"), o.optStr("plan"),
                o.optInt("cell"), o.optInt("cells"), o.optLng("cell_percent"),
                online ? o.strings("probes") : o.optStrings("probes"),
                online ? o.strings("workloads") : o.optStrings("workloads"),
                online ? Long.valueOf(o.lng("outbox_messages")) : o.optLng("outbox_messages"),
                online ? Long.valueOf(o.lng("outbox_bytes")) : o.optLng("outbox_bytes"), o.optStr("rtbox_version"),
                o.optStrings("damaged"), o.optStr("kernel"), o.optStr("preemption"), o.optStr("boot_entry"));
    }

    private static String run(JsonFields o) throws ProtocolException, JsonProblem {
        return Topics.requireId("$.run", o.str("run"));
    }

    private static long sequence(JsonFields o) throws ProtocolException, JsonProblem {
        long s = o.lng("sequence");
        if (s < 1) {
            throw new ProtocolException("$.sequence", s + ": a run's messages are numbered from 1");
        }
        return s;
    }

    private static boolean plan(JsonFields o) throws ProtocolException, JsonProblem {
        String kind = o.optStr("kind");
        if (kind != null && !"plan".equals(kind)) {
            throw new ProtocolException("$.kind", "'" + kind + "' is not understood (only \"plan\")");
        }
        return kind != null;
    }

    private static PlanCell planCell(JsonFields o) throws ProtocolException, JsonProblem {
        int cell = o.integer("cell");
        int cells = o.integer("cells");
        if (cell < 1 || cell > cells) {
            throw new ProtocolException("$.cell", cell + " is not between 1 and cells (" + cells + ")");
        }
        return new PlanCell(o.str("plan"), cell, cells, o.str("cell_name"));
    }

    private static Progress progress(JsonFields o) throws ProtocolException, JsonProblem {
        String appliance = Topics.requireId("$.appliance", o.str("appliance"));
        boolean plan = plan(o);
        long percent = o.lng("percent");
        if (percent < 0 || percent > 100) {
            throw new ProtocolException("$.percent", percent + " is not between 0 and 100");
        }
        return new Progress(appliance, o.instant("timestamp"), run(o), sequence(o), plan ? null : o.str("probe"),
                percent, plan ? planCell(o) : null);
    }

    /** Latencies and durations in a run's figures: 0 or more (rtbox clamps a sample below 0 to 0). */
    private static final String[] AMOUNTS = {"duration_s", "min_us", "avg_us", "p50_us", "p99_us", "p999_us", "max_us",
        "last_us", "histogram_bucket_us"};
    /** Counts in a run's figures: whole numbers, 0 or more. */
    private static final String[] COUNTS = {"samples", "overflows", "missed_deadlines"};

    /**
     * The figures that {@code o} holds, wherever it holds them (with or without {@code samples}):
     * no latency below 0, no count below 0 or a fraction, no histogram count below 0. A control room
     * stored a negative max_us and showed it as a figure (issue 31); infinities do not get this far
     * (rtbox.json refuses 1e999).
     */
    private static void checkFigures(JsonFields o) throws ProtocolException, JsonProblem {
        for (String k : AMOUNTS) {
            if (o.has(k) && o.dbl(k) < 0) {
                throw new ProtocolException(o.at(k), o.object().get(k) + " is negative: a latency or duration is 0 or"
                        + " more");
            }
        }
        for (String k : COUNTS) {
            if (o.has(k) && o.lng(k) < 0) {
                throw new ProtocolException(o.at(k), o.lng(k) + " is negative: a count is 0 or more");
            }
        }
        if (o.has("histogram")) {
            long[] h = o.longs("histogram");
            for (int i = 0; i < h.length; i++) {
                if (h[i] < 0) {
                    throw new ProtocolException(o.at("histogram") + "[" + i + "]", h[i] + " is negative: a count is 0"
                            + " or more");
                }
            }
        }
        if (o.has("threads")) {
            JsonArray a = o.arr("threads");
            for (int i = 0; i < a.size(); i++) {
                checkFigures(JsonFields.of(a.get(i), o.at("threads") + "[" + i + "]"));
            }
        }
    }

    private static Figures figures(JsonFields o) throws ProtocolException, JsonProblem {
        checkFigures(o);
        if (!o.has("samples")) {
            return null;
        }
        JsonArray a = o.arr("threads");
        List<ThreadFigures> threads = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            JsonFields t = JsonFields.of(a.get(i), "$.threads[" + i + "]");
            threads.add(new ThreadFigures(t.integer("thread"), t.integer("cpu"), t.optStr("policy"),
                    t.integer("priority"), t.lng("samples"), t.dbl("min_us"), t.dblOrNaN("avg_us"), t.dbl("p50_us"),
                    t.dbl("p99_us"), t.dbl("p999_us"), t.dbl("max_us"), t.lng("overflows"),
                    t.lng("missed_deadlines"), t.longs("histogram"), t.optDbl("last_us")));
        }
        return new Figures(o.dbl("duration_s"), o.lng("samples"), o.dbl("min_us"), o.dbl("p50_us"), o.dbl("p99_us"),
                o.dbl("p999_us"), o.dbl("max_us"), o.lng("overflows"), o.lng("missed_deadlines"),
                o.dbl("histogram_bucket_us"), o.longs("histogram"), List.copyOf(threads));
    }

    private static JsonObject report(JsonFields o) throws ProtocolException, JsonProblem {
        return o.has("report") ? o.obj("report").object() : null;
    }

    private static Cell cell(JsonFields o) throws ProtocolException, JsonProblem {
        String appliance = Topics.requireId("$.appliance", o.str("appliance"));
        if (!plan(o)) {
            throw new ProtocolException("$.kind", "is missing: a cell is of a plan (\"kind\":\"plan\")");
        }
        return new Cell(appliance, o.instant("timestamp"), run(o), sequence(o), planCell(o), o.optStr("probe"),
                o.enumeration("verdict", Outcome.class), o.str("reason"), o.bool("complete"), o.optInstant("started"),
                o.optInstant("ended"), figures(o), report(o), o.optStr("policy"), o.stringMap("axes"),
                o.has("loads") ? o.strings("loads") : List.of(), o.stringMap("tuner"));
    }

    private static Result result(JsonFields o) throws ProtocolException, JsonProblem {
        String appliance = Topics.requireId("$.appliance", o.str("appliance"));
        PlanOutcome plan = null;
        if (plan(o)) {
            List<CellLine> cells = null;
            if (o.has("cells")) {
                JsonArray a = o.arr("cells");
                cells = new ArrayList<>(a.size());
                for (int i = 0; i < a.size(); i++) {
                    JsonFields c = JsonFields.of(a.get(i), "$.cells[" + i + "]");
                    checkFigures(c);
                    cells.add(new CellLine(c.integer("cell"), c.str("name"), c.lng("sequence"),
                            c.enumeration("verdict", Outcome.class), c.lng("max_us"), c.lng("missed_deadlines"),
                            c.lng("overflows")));
                }
                cells = List.copyOf(cells);
            }
            plan = new PlanOutcome(o.str("plan"), o.optStr("state"), o.integer("cells_planned"), o.optInt("cells_run"),
                    cells, o.optStr("description"));
        }
        return new Result(appliance, o.instant("timestamp"), run(o), sequence(o),
                plan == null ? o.str("probe") : o.optStr("probe"), o.enumeration("verdict", Outcome.class),
                o.str("reason"), o.bool("complete"), o.optInstant("started"), o.optInstant("ended"), figures(o),
                report(o), plan);
    }

    private static Reply reply(JsonFields o) throws ProtocolException, JsonProblem {
        String appliance = Topics.requireId("$.appliance", o.str("appliance"));
        String requestId = o.optStr("requestId");
        if (requestId != null) {
            Topics.requireId("$.requestId", requestId);
        }
        int code = o.integer("code");
        if (code < 100 || code > 599) {
            throw new ProtocolException("$.code", code + " is not a reply code (200, 400, 404, 409, 500)");
        }
        return new Reply(appliance, o.instant("timestamp"), requestId, o.optStr("verb"), code, o.str("message"),
                o.has("body") ? o.obj("body").object() : new JsonObject());
    }
}
