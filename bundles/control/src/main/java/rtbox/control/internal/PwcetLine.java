package rtbox.control.internal;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * A cell's probabilistic worst case in one line, for its acceptance record: the pwcet_us check's
 * own words when the plan gave that threshold ("p(latency > 2000 us in an hour) < 1e-09, 95 %
 * confidence, assumptions checked ..."), else the estimate's 1e-9-per-hour level or its refusal;
 * null when the run made no estimate.
 */
final class PwcetLine {
    private PwcetLine() {
    }

    static String of(JsonObject report) {
        JsonObject verdict = Json.object(report, "verdict");
        if (verdict != null && verdict.has("checks") && verdict.get("checks").isJsonArray()) {
            for (JsonElement c : verdict.getAsJsonArray("checks")) {
                if (c.isJsonObject() && "pwcet_us".equals(Json.string(c.getAsJsonObject(), "metric"))) {
                    return Json.string(c.getAsJsonObject(), "detail");
                }
            }
        }
        JsonObject p = Json.object(report, "pwcet");
        if (p == null || !p.has("estimates") || !p.get("estimates").isJsonArray() || p.getAsJsonArray("estimates").isEmpty()) {
            return null;
        }
        JsonObject e = null;
        for (JsonElement x : p.getAsJsonArray("estimates")) {
            if (x.isJsonObject() && (e == null || "cell".equals(Json.string(x.getAsJsonObject(), "scope")))) {
                e = x.getAsJsonObject();
            }
        }
        JsonElement applicable = e == null ? null : e.get("applicable");
        if (applicable == null || !applicable.isJsonPrimitive() || !applicable.getAsJsonPrimitive().isBoolean()
                || !applicable.getAsBoolean()) {
            return e == null ? null : Json.string(e, "refusal");
        }
        if (e.has("levels") && e.get("levels").isJsonArray()) {
            for (JsonElement l : e.getAsJsonArray("levels")) {
                JsonObject o = l.isJsonObject() ? l.getAsJsonObject() : null;
                if (o != null && "hour".equals(Json.string(o, "per")) && Json.number(o, "probability") != null
                        && Math.abs(Json.number(o, "probability") - 1e-9) < 1e-18 && Json.number(o, "highNs") != null) {
                    return String.format(java.util.Locale.ROOT, "latency exceeded with p 1e-09 in an hour: %.1f us"
                            + " (95 %% upper bound %.1f us), assumptions checked", Json.number(o, "ns") / 1000,
                            Json.number(o, "highNs") / 1000);
                }
            }
        }
        return null;
    }
}
