package rtbox.control.internal;

import com.google.gson.JsonObject;

/**
 * What an appliance's answer to a check before a start means (the readiness check,
 * MQTT {@code readiness}, and the measuring chain's self-test, MQTT {@code selftest}): whether
 * it passed, whether the check ran at all, whether the appliance answered, and the form in
 * which the run keeps it for its record.
 */
final class CheckAnswers {
    private CheckAnswers() {
    }

    /** A check's reply as kept with the run: when, its code, whether it passed, its message and figures. */
    static JsonObject kept(JsonObject reply, long atMs) {
        JsonObject o = new JsonObject();
        o.addProperty("at", Json.iso(atMs));
        o.add("code", reply.get("code"));
        o.addProperty("ok", ok(reply));
        o.add("message", reply.get("message"));
        o.add("body", reply.get("body"));
        return o;
    }

    /** Whether the check passed (200). */
    static boolean ok(JsonObject reply) {
        Integer code = Json.integer(reply, "code");
        return code != null && code == 200;
    }

    /** Whether the appliance did not answer in time (504) or could not be reached (503). */
    static boolean silent(JsonObject reply) {
        Integer code = reply == null ? null : Json.integer(reply, "code");
        return code != null && (code == 504 || code == 503);
    }

    /**
     * Whether the appliance ran the check: it passed (200) or ran and failed (500); not when it
     * was busy (409), did not know the verb (404), refused the command (400) or did not answer.
     */
    static boolean ran(JsonObject reply) {
        Integer code = reply == null ? null : Json.integer(reply, "code");
        return code != null && (code == 200 || code == 500);
    }
}
