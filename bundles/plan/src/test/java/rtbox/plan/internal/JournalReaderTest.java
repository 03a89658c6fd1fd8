package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.json.JsonProblem;

/** Journal records read strictly, and the records older rtbox wrote with NaN still read. */
class JournalReaderTest {
    @Test
    void anOlderRecordsNaNAndInfinitiesReadAsNullOutsideStringsOnly() throws JsonProblem {
        String older = "{\"type\":\"cell\",\"id\":\"r1\",\"note\":\"NaN \\\"Infinity\\\"\",\"a\":NaN,\"b\":[Infinity,"
                + "-Infinity,1]}";
        assertEquals("{\"type\":\"cell\",\"id\":\"r1\",\"note\":\"NaN \\\"Infinity\\\"\",\"a\":null,\"b\":[null,"
                + "null,1]}", JournalReader.nonFiniteAsNull(older));
        assertTrue(JournalReader.parse(older).getAsJsonObject().get("a").isJsonNull());
        assertNull(JournalReader.nonFiniteAsNull("{\"note\":\"NaN\"}"), "nothing to change");
    }

    @Test
    void whatIsNotStrictJsonForAnotherReasonStaysAProblem() {
        assertThrows(JsonProblem.class, () -> JournalReader.parse("{\"a\":1,\"a\":2}"));
        assertThrows(JsonProblem.class, () -> JournalReader.parse("{\"a\":NaN,}"));
    }
}
