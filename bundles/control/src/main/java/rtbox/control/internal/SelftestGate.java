package rtbox.control.internal;

import java.util.Locale;
import java.util.Set;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The measuring chain's self-test on a record: whether the run's self-test (the appliance's
 * MQTT {@code selftest}, run by the start just before the plan: a stall injected, found and
 * attributed) proves the instrument, what a record carries of it, and an admin's override when
 * it does not. Pure: the run's stored self-test in, the record's parts out.
 */
final class SelftestGate {
    /** The reply's members a record does not repeat (the reply's own verdict and reason are its ok and message). */
    private static final Set<String> NOT_REPEATED = Set.of("pass", "reason");

    private SelftestGate() {
    }

    /** Why the self-test stored with run {@code run} does not prove the instrument; null when it does. */
    static String unproven(String run, JsonObject selftest, Long selftestMs, Boolean ok) {
        if (selftest == null || selftestMs == null) {
            return "the measuring chain's self-test did not run before run '" + run + "'"
                    + (selftest == null ? " (a start with a controller serial runs it)"
                            : ": the appliance answered " + Json.string(selftest, "code") + " "
                            + Json.string(selftest, "message"));
        }
        if (!Boolean.TRUE.equals(ok)) {
            return "the measuring chain's self-test before run '" + run + "' failed: " + Json.string(selftest, "message");
        }
        return null;
    }

    /**
     * The record's {@code selftest_override} when {@code unproven} is overridden; null when nothing is
     * unproven (a reason given then is ignored: there is nothing to override). Refuses (409) without an
     * override, and (403) an override by someone who is not an admin.
     */
    static JsonObject overridden(String unproven, Records.Override override, String user) {
        if (unproven == null) {
            return null;
        }
        if (override == null) {
            throw new BadRequest(409, "refused: " + unproven + "; a record needs the instrument's self-test passed just"
                    + " before the run (an admin may give override_reason to issue it anyway: audited, shown on the"
                    + " record)");
        }
        if (!override.role().atLeast(Role.ADMIN)) {
            throw new BadRequest(403, "needs role admin to override a record's self-test; you are "
                    + override.role().id());
        }
        JsonObject o = new JsonObject();
        o.addProperty("reason", override.reason());
        o.addProperty("by", user);
        o.addProperty("overrides", unproven);
        return o;
    }

    /**
     * The record's {@code selftest}: when it ran, its age at the run's start, whether it passed, the
     * appliance's message and its figures (docs/mqtt.md, {@code selftest}); null when it did not run.
     */
    static JsonObject figures(JsonObject selftest, Long selftestMs, long runStartMs) {
        if (selftest == null || selftestMs == null) {
            return null;
        }
        JsonObject o = new JsonObject();
        o.add("at", selftest.get("at"));
        o.addProperty("age_s", (runStartMs - selftestMs) / 1000);
        o.add("ok", selftest.get("ok"));
        o.add("code", selftest.get("code"));
        o.add("message", selftest.get("message"));
        JsonObject body = Json.object(selftest, "body");
        if (body != null) {
            for (var e : body.entrySet()) {
                if (!NOT_REPEATED.contains(e.getKey()) && !o.has(e.getKey())) {
                    o.add(e.getKey(), e.getValue());
                }
            }
        }
        return o;
    }

    /** Whether a record's body carries a passed self-test. */
    static boolean passed(JsonObject record) {
        JsonObject st = Json.object(record, "selftest");
        JsonElement ok = st == null ? null : st.get("ok");
        return ok != null && ok.isJsonPrimitive() && ok.getAsJsonPrimitive().isBoolean() && ok.getAsBoolean();
    }

    /** The self-test as a sentence for the printable record. */
    static String text(JsonObject st) {
        if (st == null) {
            return "did not run";
        }
        boolean ok = Boolean.TRUE.equals(st.has("ok") && st.get("ok").isJsonPrimitive() && st.get("ok").getAsBoolean());
        StringBuilder b = new StringBuilder(ok ? "passed" : "FAILED");
        if (st.has("found") && st.has("expected")) {
            b.append(String.format(Locale.ROOT, ": %s of %s injected stalls of %s us (every %s ms on CPU %s) found,"
                    + " attributed to %s, median %s us, detection error %s us; the machine's own noise %s spikes,"
                    + " largest %s us", str(st, "found"), str(st, "expected"), str(st, "injected_us"),
                    str(st, "every_ms"), str(st, "cpu"), str(st, "cause"), str(st, "median_us"), signed(st, "error_us"),
                    str(st, "noise_spikes"), str(st, "noise_max_us")));
        }
        if (!ok && st.has("message")) {
            b.append(" (").append(str(st, "message")).append(')');
        }
        return b.append("; at ").append(str(st, "at")).append(", ").append(str(st, "age_s"))
                .append(" s before the run").toString();
    }

    /** The records list's short form: ok, found, expected, error_us, overridden; null for a record that has none. */
    static JsonObject summary(String body) {
        JsonObject r;
        try {
            r = Json.parse(body);
        } catch (RuntimeException e) {
            return null; // a body that is no longer JSON: verify names it; the list still answers
        }
        if (r == null || !r.has("readiness")) {
            return null; // issued before records carried the self-test
        }
        JsonObject st = Json.object(r, "selftest");
        JsonObject o = new JsonObject();
        o.addProperty("ok", passed(r));
        o.addProperty("ran", st != null);
        if (st != null) {
            o.add("found", st.get("found"));
            o.add("expected", st.get("expected"));
            o.add("error_us", st.get("error_us"));
        }
        JsonObject ov = Json.object(r, "selftest_override");
        o.add("override_reason", ov == null ? null : ov.get("reason"));
        return o;
    }

    private static String str(JsonObject o, String k) {
        String s = Json.string(o, k);
        return s == null ? "?" : s;
    }

    private static String signed(JsonObject o, String k) {
        String s = str(o, k);
        return s.startsWith("-") || s.equals("?") ? s : "+" + s;
    }
}
