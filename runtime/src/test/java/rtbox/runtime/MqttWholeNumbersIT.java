package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * Issue 33: a whole number in a command is read exactly, by rtbox.json, or refused with its
 * JSON path; never cut. A real appliance on a real mosquitto gets a fraction, a value past its
 * type and one past its range for each verb that reads a whole number ({@code results}'
 * limit, {@code selftest}'s duration_s and cpu, {@code set-config}'s integer properties, the
 * {@code run} and {@code plan} bodies), answers each 400 naming the path, and goes on serving:
 * a status after each, and the same verbs with right values answered 200. Before, {@code
 * "limit": 2.5} was a page of 2 and {@code "keepAliveSeconds": 2.5} a keep-alive of 2 s.
 */
class MqttWholeNumbersIT extends MqttFixture {
    /** Verb, body, the path the 400's message must name. */
    static final String[][] REFUSED = {
        {"results", "\"limit\":2.5", "$.limit: expected a whole number, got 2.5"},
        {"results", "\"limit\":1e30", "$.limit: expected a whole number, got 1e30"},
        {"results", "\"limit\":101", "$.limit: 101 is out of range: use 1 to 100"},
        // Past a double's range: the command does not parse, so its request id is not known: reply/none.
        {"results", "\"limit\":1e400", "$.limit: 1e400 is out of range: a number here is at most about 1.8e308"},
        {"selftest", "\"duration_s\":2.5", "$.duration_s: expected a whole number, got 2.5"},
        {"selftest", "\"duration_s\":3000000000", "$.duration_s: 3000000000 is out of range: use 1 to 60"},
        {"selftest", "\"cpu\":0.5", "$.cpu: expected a whole number, got 0.5"},
        {"set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"keepAliveSeconds\":2.5}",
            "$.properties.keepAliveSeconds: expected a whole number, got 2.5"},
        {"set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"keepAliveSeconds\":3000000000}",
            "$.properties.keepAliveSeconds: 3000000000 is out of range: use -2147483648 to 2147483647"},
        {"set-config", "\"pid\":\"rtbox.mqtt\",\"properties\":{\"outboxMaxBytes\":1e19}",
            "$.properties.outboxMaxBytes: expected a whole number, got 1e19"},
        {"run", "\"probe\":\"timer\",\"duration\":\"1s\",\"parameters\":{\"interval_us\":1000.5}",
            "$.parameters.interval_us"},
        {"run", "\"probe\":\"timer\",\"duration\":\"1s\",\"parameters\":{\"cpus\":[0.5]}", "$.parameters.cpus[0]"},
        {"plan", "\"plan\":{\"rtbox_plan\":1.5,\"name\":\"w\",\"probe\":\"timer\",\"duration\":\"1s\"}",
            "$.rtbox_plan: expected the schema version 1, found 1.5"},
    };

    private JsonObject ask(String verb, String body) throws Exception {
        java.util.function.Predicate<ControlRoom.Received> toNone = m -> m.topic().equals("rtbox/v1/up/a1/reply/none");
        int none = control.all(toNone).size();
        String id = control.command(MqttIT.A, verb, body);
        ControlRoom.Received r;
        if (body.contains("1e400")) {
            Await.until(30_000, () -> "no reply/none to " + verb + " " + body, () -> control.all(toNone).size() > none);
            r = control.all(toNone).get(none);
        } else {
            r = control.reply(MqttIT.A, id, 30_000);
        }
        assertNotNull(r, "no reply to " + verb + " " + body);
        return r.json();
    }

    @Test
    void aFractionOrAnOutOfRangeWholeNumberIsRefusedNamingItsPathAndTheApplianceServesOn() throws Exception {
        serve(false);
        JsonObject before = ask("get-config", "\"pid\":\"rtbox.mqtt\"").getAsJsonObject("body");
        List<String> wrong = new ArrayList<>();
        for (String[] c : REFUSED) {
            JsonObject r = ask(c[0], c[1]);
            String message = r.get("message").getAsString();
            if (r.get("code").getAsInt() != 400 || !message.contains(c[2])
                    || MqttCorpusIT.LIBRARY_TEXT.matcher(message).find()) {
                wrong.add(c[0] + " {" + c[1] + "}: " + r.get("code") + " '" + message + "', wanted 400 naming '" + c[2]
                        + "'");
            }
            JsonObject s = ask("status", "");
            if (s.get("code").getAsInt() != 200 || s.getAsJsonObject("body").get("busy").getAsBoolean()) {
                wrong.add("status after " + c[0] + " {" + c[1] + "}: " + s);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));

        // The same verbs with right values: served.
        JsonObject page = ask("results", "\"limit\":2.0"); // 2.0 is the whole number 2
        assertEquals(200, page.get("code").getAsInt(), page.toString());
        JsonObject config = ask("get-config", "\"pid\":\"rtbox.mqtt\"");
        assertEquals(200, config.get("code").getAsInt(), config.toString());
        assertEquals(before, config.getAsJsonObject("body"), "a refused set-config changed rtbox.mqtt");
    }
}
