package rtbox.mqtt.protocol;

import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * Writes and reads {@link Live} messages (type {@code live}, topic {@code up/ID/live}; since 1.5).
 * Kept apart from {@link Codec}: a live message is no {@link Message} of a run (no sequence
 * number, never stored), and a reader that only keeps results need not know it.
 */
public final class LiveCodec {
    private LiveCodec() {
    }

    public static byte[] encode(Live l) {
        JsonObject o = new JsonObject();
        o.addProperty("schema", Codec.SCHEMA);
        o.addProperty("type", "live");
        o.addProperty("timestamp", l.timestamp().toString());
        o.addProperty("appliance", l.appliance());
        o.addProperty("run", l.run());
        o.addProperty("probe", l.probe());
        o.addProperty("plan", l.plan());
        o.addProperty("cell", l.cell());
        o.addProperty("cells", l.cells());
        o.addProperty("cell_name", l.cellName());
        o.addProperty("percent", l.percent());
        o.add("threads", threads(l.threads()));
        return Json.write(o);
    }

    /**
     * The threads' lines as the message carries them (and the control room relays them to its
     * pages): {@code avg_us} left out before the first sample, when there is no average.
     */
    public static JsonArray threads(List<LiveLine> lines) {
        JsonArray threads = new JsonArray();
        for (LiveLine t : lines) {
            JsonObject th = new JsonObject();
            th.addProperty("thread", t.thread());
            th.addProperty("cpu", t.cpu());
            th.addProperty("samples", t.samples());
            th.addProperty("min_us", t.minUs());
            th.addProperty("act_us", t.actUs());
            if (Double.isFinite(t.avgUs())) {
                th.addProperty("avg_us", t.avgUs());
            }
            th.addProperty("max_us", t.maxUs());
            threads.add(th);
        }
        return threads;
    }

    /** A live message on {@code topic}; the topic and the payload's appliance must agree. */
    public static Live decode(String topic, byte[] payload) throws ProtocolException {
        Topic t = Topics.parse(topic);
        if (t.kind() != Topic.Kind.LIVE) {
            throw new ProtocolException("topic", "'" + topic + "' is not a live topic (" + Topics.ROOT + "/up/ID/live)");
        }
        try {
            JsonFields o = JsonFields.of(Json.parse(payload), "$");
            if (!"live".equals(o.str("type"))) {
                throw new ProtocolException("$.type", "'" + o.str("type") + "' on a live topic (expected live)");
            }
            String appliance = Topics.requireId("$.appliance", o.str("appliance"));
            if (!appliance.equals(t.appliance())) {
                throw new ProtocolException("$.appliance", "'" + appliance + "' on the topic of " + t.appliance());
            }
            long percent = o.lng("percent");
            if (percent < 0 || percent > 100) {
                throw new ProtocolException("$.percent", percent + " is not between 0 and 100");
            }
            JsonArray a = o.arr("threads");
            List<LiveLine> threads = new ArrayList<>(a.size());
            for (int i = 0; i < a.size(); i++) {
                JsonFields th = JsonFields.of(a.get(i), "$.threads[" + i + "]");
                threads.add(new LiveLine(th.integer("thread"), th.integer("cpu"), th.lng("samples"), th.dbl("min_us"),
                        th.dbl("act_us"), th.dblOrNaN("avg_us"), th.dbl("max_us")));
            }
            return new Live(appliance, o.instant("timestamp"), Topics.requireId("$.run", o.str("run")),
                    o.optStr("probe"), o.optStr("plan"), o.optInt("cell"), o.optInt("cells"), o.optStr("cell_name"),
                    percent, threads);
        } catch (JsonProblem p) {
            throw Json.problem(p);
        }
    }
}
