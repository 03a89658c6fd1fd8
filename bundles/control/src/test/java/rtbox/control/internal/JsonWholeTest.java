package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * The control room's whole numbers (issue 33): read by rtbox.json exactly, a fraction or an
 * out-of-range value an error naming its field or path, never cut (2.5 was 2 where a reader
 * used Gson's getAsInt on a strict tree).
 */
class JsonWholeTest {
    private static final JsonObject O = Json.parse("{\"code\":2.5,\"cell\":3000000000,\"seq\":7,\"big\":1e40,"
            + "\"cpus\":[0.5,1e30,1]}");

    @Test
    void aFieldsFractionOrOutOfRangeValueIsAnErrorNamingIt() {
        assertEquals("code: expected a whole number, got 2.5",
                assertThrows(IllegalArgumentException.class, () -> Json.integer(O, "code")).getMessage());
        assertEquals("cell: 3000000000 is out of range (32 bits)",
                assertThrows(IllegalArgumentException.class, () -> Json.integer(O, "cell")).getMessage());
        assertEquals("big: expected a whole number, got 1e40",
                assertThrows(IllegalArgumentException.class, () -> Json.whole(O, "big")).getMessage());
        assertEquals(7, Json.integer(O, "seq"));
    }

    @Test
    void anElementsFractionOrOutOfRangeValueIsAnErrorNamingItsPath() {
        assertEquals("$.cpus[0]: expected a whole number, got 0.5", assertThrows(IllegalArgumentException.class,
                () -> Json.whole(O.getAsJsonArray("cpus").get(0), "$.cpus[0]", 0, Integer.MAX_VALUE)).getMessage());
        assertEquals("$.cpus[1]: expected a whole number, got 1e30", assertThrows(IllegalArgumentException.class,
                () -> Json.whole(O.getAsJsonArray("cpus").get(1), "$.cpus[1]", 0, Integer.MAX_VALUE)).getMessage());
        assertEquals("$.cpus[2]: 1 is out of range: use 2 to 9", assertThrows(IllegalArgumentException.class,
                () -> Json.whole(O.getAsJsonArray("cpus").get(2), "$.cpus[2]", 2, 9)).getMessage());
    }

    /** A start's cpus of [0.5] was shown as CPU 0: it is shown as written, for the plan's check to name. */
    @Test
    void aFractionalCpuIsNotCpuZero() {
        assertEquals("[0.5,1]", PlanInputs.cpuList(Json.element("[0.5,1]")));
        assertEquals("0-1", PlanInputs.cpuList(Json.element("[0,1]")));
    }
}
