package rtbox.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.junit.jupiter.api.Test;

class StrictJsonTest {
    private static JsonProblem bad(String text) {
        return assertThrows(JsonProblem.class, () -> StrictJson.parse(text));
    }

    @Test
    void refusesWhatRfc8259Forbids() {
        for (String t : new String[] {"{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}", "{a:1}", "{'a':1}",
                "{\"a\":1} {}", "{\"a\":1,}", "[1,]", "{\"a\":1 /* c */}", "", "{\"a\":01}"}) {
            JsonProblem p = bad(t);
            assertEquals("$", p.path(), t);
        }
        assertTrue(bad("{\"a\":\n  x}").problem().contains("line 2"), bad("{\"a\":\n  x}").problem());
        assertTrue(bad("{\"a\":1} {}").problem().startsWith("not valid JSON: more after the value"));
        // No library text in what a user reads.
        String m = bad("{'a':1}").getMessage();
        assertTrue(!m.contains("JsonReader") && !m.contains("Strictness") && !m.contains("http"), m);
    }

    @Test
    void aNameGivenTwiceIsNamedByItsPath() {
        JsonProblem p = bad("{\"t\":{\"max_us\":1,\"max_us\":2}}");
        assertEquals("$.t.max_us", p.path());
        assertEquals("$.t.max_us: given twice", p.getMessage());
    }

    @Test
    void nestingDeeperThanTheLimitIsRefusedWithoutAStackOverflow() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        assertTrue(bad(deep).problem().startsWith("nested deeper than " + StrictJson.MAX_DEPTH));
        String ok = "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH);
        assertDoesNotThrow(ok);
    }

    /** 1e999 is valid JSON and an infinity as a double: a latency of 1e999 was stored (issue 31). */
    @Test
    void aNumberBeyondADoublesRangeIsRefusedByItsPath() throws JsonProblem {
        assertEquals("$.max_us: 1e999 is out of range: a number here is at most about 1.8e308 in size",
                bad("{\"max_us\":1e999}").getMessage());
        assertEquals("$.h[2]", bad("{\"h\":[0,1,-1E+400]}").path());
        assertEquals("$.n", bad("{\"n\":" + "9".repeat(400) + "}").path());
        // At the edges, and what underflows to zero, are numbers.
        JsonFields f = StrictJson.object("{\"a\":1.7976931348623157e308,\"b\":1e-999,\"c\":12345678901234567890123}");
        assertEquals(Double.MAX_VALUE, f.dbl("a"));
        assertEquals(0.0, f.dbl("b"));
    }

    private static void assertDoesNotThrow(String text) {
        org.junit.jupiter.api.Assertions.assertDoesNotThrow(() -> StrictJson.parse(text));
    }

    @Test
    void numbersAreExactOrAnError() throws JsonProblem {
        JsonFields f = StrictJson.object("{\"a\":2.5,\"b\":2.0,\"c\":9007199254740993,\"d\":\"2\",\"e\":1e2,"
                + "\"f\":99999999999999999999}");
        JsonProblem p = assertThrows(JsonProblem.class, () -> f.lng("a"));
        assertEquals("$.a: expected a whole number, got 2.5", p.getMessage());
        assertEquals(2, f.lng("b"));
        assertEquals(9007199254740993L, f.lng("c")); // 2^53 + 1: a double would round it
        assertEquals("$.d: expected a number, got \"2\"", assertThrows(JsonProblem.class, () -> f.lng("d")).getMessage());
        assertEquals(100, f.lng("e"));
        assertEquals("$.f", assertThrows(JsonProblem.class, () -> f.lng("f")).path());
        assertEquals("$.a: 2 is out of range: use 3 to 9", assertThrows(JsonProblem.class,
                () -> JsonFields.whole(f.object().get("b"), "$.a", 3, 9)).getMessage());
    }

    /**
     * Gson's own getters on a strict tree (what 20 calls in main sources used before issue 33) refuse rather
     * than cut: 2.5 was 2, 3000000000 as an int was -1294967296.
     */
    @Test
    void gsonsNarrowingGettersOnAStrictTreeAreExactOrRefuse() throws JsonProblem {
        com.google.gson.JsonObject o = StrictJson.object("{\"a\":2.5,\"b\":2.0,\"c\":9007199254740993,\"d\":3000000000,"
                + "\"e\":1e2,\"f\":1e40,\"g\":-0.0,\"h\":40000}").object();
        assertEquals("2.5 is not a whole number",
                assertThrows(NumberFormatException.class, () -> o.get("a").getAsLong()).getMessage());
        assertThrows(NumberFormatException.class, () -> o.get("a").getAsInt());
        assertEquals(2, o.get("b").getAsInt());
        assertEquals(9007199254740993L, o.get("c").getAsLong());
        assertEquals(3000000000L, o.get("d").getAsLong());
        assertEquals("3000000000 is out of range for a whole number of 32 bits",
                assertThrows(NumberFormatException.class, () -> o.get("d").getAsInt()).getMessage());
        assertEquals(100, o.get("e").getAsInt());
        assertEquals("1e40 is out of range for a whole number of 64 bits",
                assertThrows(NumberFormatException.class, () -> o.get("f").getAsLong()).getMessage());
        assertEquals(0, o.get("g").getAsLong());
        assertThrows(NumberFormatException.class, () -> o.get("h").getAsShort());
        assertThrows(NumberFormatException.class, () -> o.get("h").getAsByte());
        assertEquals(2.5, o.get("a").getAsDouble()); // a fraction where a double is asked for
        // The path-naming readers, fractional and out of range:
        JsonFields f = JsonFields.of(o, "$.p");
        assertEquals("$.p.a: expected a whole number, got 2.5", assertThrows(JsonProblem.class, () -> f.lng("a")).getMessage());
        assertEquals("$.p.d: expected a whole number (32 bits), got 3000000000",
                assertThrows(JsonProblem.class, () -> f.integer("d")).getMessage());
        assertEquals("$.p.f: expected a whole number, got 1e40", assertThrows(JsonProblem.class, () -> f.lng("f")).getMessage());
        assertEquals("$.x[0]: expected a whole number, got 2.5",
                assertThrows(JsonProblem.class, () -> JsonFields.whole(o.get("a"), "$.x[0]", 0, 9)).getMessage());
        assertEquals("$.x[0]: 3000000000 is out of range: use 0 to 100", assertThrows(JsonProblem.class,
                () -> JsonFields.whole(o.get("d"), "$.x[0]", 0, 100)).getMessage());
    }

    @Test
    void typedAccessNamesThePath() throws JsonProblem {
        JsonFields f = StrictJson.object("{\"o\":{\"b\":1,\"s\":[\"x\",2]},\"n\":null}");
        assertEquals("$.o.b: expected true or false, got 1",
                assertThrows(JsonProblem.class, () -> f.obj("o").bool("b")).getMessage());
        assertEquals("$.o.s[1]", assertThrows(JsonProblem.class, () -> f.obj("o").strings("s")).path());
        assertEquals(null, f.optStr("n"));
        assertEquals("$.n is missing", assertThrows(JsonProblem.class, () -> f.str("n")).getMessage());
        assertEquals("$.o.s", assertThrows(JsonProblem.class, () -> f.obj("o").onlyKnown(Set.of("b"))).path());
        assertEquals("$: expected a JSON object, got [1]",
                assertThrows(JsonProblem.class, () -> StrictJson.object("[1]")).getMessage());
    }

    @Test
    void bytesMustBeUtf8() {
        JsonProblem p = assertThrows(JsonProblem.class, () -> StrictJson.parse(new byte[] {'"', (byte) 0xff, '"'}));
        assertEquals("$: not UTF-8 text", p.getMessage());
        org.junit.jupiter.api.Assertions.assertDoesNotThrow(() -> StrictJson.parse("{}".getBytes(StandardCharsets.UTF_8)));
    }
}
