package rtbox.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.google.gson.Gson;

/** Model classes written without NaN and read strictly, numbers exact. */
class ModelJsonTest {
    record Figures(long samples, double avg, double ratio, Double spare, Map<String, Double> named, List<Long> counts) {
    }

    private static final Gson GSON = ModelJson.builder().create();
    private static final Gson WITH_NULLS = ModelJson.builder().serializeNulls().create();

    @Test
    void notFiniteIsWrittenAsNullEvenWhereNullsAreLeftOutAndReadBackAsNaN() throws JsonProblem {
        Map<String, Double> named = new LinkedHashMap<>();
        named.put("xruns", Double.NaN);
        named.put("load", 0.5);
        Figures f = new Figures(3, Double.NaN, Double.POSITIVE_INFINITY, null, named, List.of(1L, 2L));
        String text = GSON.toJson(f);
        assertEquals("{\"samples\":3,\"avg\":null,\"ratio\":null,\"named\":{\"xruns\":null,\"load\":0.5},"
                + "\"counts\":[1,2]}", text, "the null Double is left out, the not-finite ones are null");
        assertFalse(text.contains("NaN") || text.contains("Infinity"));
        Figures back = ModelJson.read(GSON, text, Figures.class);
        assertTrue(Double.isNaN(back.avg()), "a double read back as NaN, not 0");
        assertTrue(Double.isNaN(back.ratio()));
        assertNull(back.spare());
        assertNull(back.named().get("xruns"), "a Double reads back as null");
        assertTrue(back.named().containsKey("xruns"));
        assertEquals(0.5, back.named().get("load"));
        assertEquals("{\"samples\":3,\"avg\":null,\"ratio\":null,\"spare\":null,\"named\":{\"xruns\":null,\"load\":0.5},"
                + "\"counts\":[1,2]}", WITH_NULLS.toJson(f));
        // and through a tree (as a journal record holds its cell)
        assertTrue(GSON.toJsonTree(f).getAsJsonObject().get("avg").isJsonNull());
    }

    @Test
    void aCountThatIsNotWholeIsAProblemAtItsPathNeverRounded() {
        JsonProblem p = assertThrows(JsonProblem.class, () -> ModelJson.read(GSON,
                "{\"samples\":2.5,\"avg\":1.0,\"ratio\":1,\"counts\":[]}", Figures.class));
        assertEquals("$.samples", p.path());
        JsonProblem inList = assertThrows(JsonProblem.class, () -> ModelJson.read(GSON,
                StrictJson.parse("{\"samples\":2,\"avg\":1.0,\"ratio\":1,\"counts\":[1,1e40]}"), Figures.class));
        assertEquals("$.counts[1]", inList.path());
        assertFalse(inList.getMessage().contains("Exception") || inList.getMessage().contains("gson"),
                inList.getMessage());
    }

    @Test
    void wholeNumbersAreExactPast2To53AndTheStrictRulesHold() throws JsonProblem {
        Figures text = ModelJson.read(GSON, "{\"samples\":9007199254740993,\"avg\":0,\"ratio\":0,\"counts\":[]}",
                Figures.class);
        Figures tree = ModelJson.read(GSON, StrictJson.parse("{\"samples\":9007199254740993,\"avg\":0,\"ratio\":0,"
                + "\"counts\":[]}"), Figures.class);
        assertEquals(9007199254740993L, text.samples());
        assertEquals(9007199254740993L, tree.samples(), "from a tree too");
        assertThrows(JsonProblem.class, () -> ModelJson.read(GSON, "{\"samples\":1,\"avg\":NaN}", Figures.class));
        assertEquals("$.samples", assertThrows(JsonProblem.class, () -> ModelJson.read(GSON,
                "{\"samples\":1,\"samples\":2}", Figures.class)).path());
        assertEquals("$.counts", assertThrows(JsonProblem.class, () -> ModelJson.read(GSON,
                "{\"samples\":1,\"counts\":\"many\"}", Figures.class)).path());
    }
}
