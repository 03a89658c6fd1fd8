package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/** The parameters a start asks for: found in every place a plan can hold them, filled in, offered. */
class PlanInputsTest {
    private static final String FAT = "{\"rtbox_plan\":1,\"name\":\"f\",\"probe\":\"timer\",\"parameters\":{\"cpus\":[0]},"
            + "\"duration\":\"1s\",\"cells\":[{\"name\":\"idle\"},{\"name\":\"io\",\"loads\":[\"pipe:mode=rtt\","
            + "{\"workload\":\"blockio\",\"parameters\":{\"bs\":\"64k\"}}]}],"
            + "\"matrix\":{\"load\":{\"none\":[],\"disk\":[\"blockio:bs=4k,path=/dev/old\"]}}}";

    @Test
    void findsBlockioLoadsAndCpusAndFillsThemIn() {
        JsonObject plan = Json.parse(FAT);
        PlanInputs in = PlanInputs.of(plan);
        JsonArray d = in.describe(null);
        JsonObject path = d.get(0).getAsJsonObject(), cpus = d.get(1).getAsJsonObject();
        assertEquals("blockio_path", Json.string(path, "name"));
        assertEquals("[\"$.cells[1].loads[1]\",\"$.matrix.load.disk[0]\"]", path.get("at").toString());
        assertEquals("0", Json.string(cpus, "default"));
        JsonObject filled = in.apply(plan, "/dev/vda", "0-1");
        assertEquals("/dev/vda", filled.getAsJsonArray("cells").get(1).getAsJsonObject().getAsJsonArray("loads").get(1)
                .getAsJsonObject().getAsJsonObject("parameters").get("path").getAsString());
        assertEquals("blockio:bs=4k,path=/dev/vda", filled.getAsJsonObject("matrix").getAsJsonObject("load")
                .getAsJsonArray("disk").get(0).getAsString());
        assertEquals("[0,1]", filled.getAsJsonObject("parameters").get("cpus").toString());
        assertEquals("pipe:mode=rtt", filled.getAsJsonArray("cells").get(1).getAsJsonObject().getAsJsonArray("loads")
                .get(0).getAsString(), "another load is left as it was");
        assertEquals(FAT, Json.GSON.toJson(plan), "the plan itself is not changed");
        assertTrue(Json.GSON.toJson(in.forCheck(plan)).contains(PlanInputs.STAND_IN));
        assertEquals(400, assertThrows(BadRequest.class, () -> in.apply(plan, "/dev/x,path=/etc", null)).status);
        assertEquals(400, assertThrows(BadRequest.class, () -> in.apply(plan, null, "zero")).status);
    }

    @Test
    void offersWhatTheApplianceReported() {
        PlanInputs in = PlanInputs.of(Json.parse(FAT.replace("\"matrix\"", "\"m\"").replace(",\"m\":{\"load\":{\"none\":[],"
                + "\"disk\":[\"blockio:bs=4k,path=/dev/old\"]}}", "")));
        JsonObject st = Json.parse("{\"cpus\":\"0-3\",\"block_devices\":[{\"path\":\"/dev/sdb\",\"readable\":false},"
                + "{\"path\":\"/dev/sda\",\"readable\":true}]}");
        JsonArray d = in.describe(Map.of("a1", st));
        JsonObject a1 = d.get(0).getAsJsonObject().getAsJsonObject("appliances").getAsJsonObject("a1");
        assertEquals("[\"/dev/sda\",\"/dev/sdb\"]", a1.get("choices").toString(), "readable first");
        assertEquals("/dev/sda", Json.string(a1, "default"));
        assertTrue(d.get(0).getAsJsonObject().get("required").getAsBoolean());
        assertEquals("[0,1,2,3]", d.get(1).getAsJsonObject().getAsJsonObject("appliances").getAsJsonObject("a1")
                .get("choices").toString());
    }

    @Test
    void cellsWithTheirOwnCpusAreNotAsked() {
        PlanInputs in = PlanInputs.of(Json.parse("{\"rtbox_plan\":1,\"name\":\"g\",\"probe\":\"timer\",\"duration\":\"1s\","
                + "\"cells\":[{\"name\":\"a\",\"parameters\":{\"cpus\":[0]}},{\"name\":\"b\",\"parameters\":{\"cpus\":\"1\"}}]}"));
        assertFalse(in.any());
        assertEquals("0-2,5", PlanInputs.compact(new int[] {5, 2, 1, 0}));
    }
}
