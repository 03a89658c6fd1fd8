package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** A cell's pWCET line on its acceptance record, from the report as the appliance sent it. */
class PwcetLineTest {
    private static com.google.gson.JsonObject report(String json) {
        return Json.parse(json);
    }

    @Test
    void thePwcetChecksOwnWordsWhenThePlanGaveTheThreshold() {
        assertEquals("p(latency > 2000 us in an hour) < 1e-09, 95 % confidence, assumptions checked (pwcet_us 412.5 <= 2000)",
                PwcetLine.of(report("{\"verdict\":{\"checks\":[{\"metric\":\"max_latency_us\",\"detail\":\"x\"},"
                        + "{\"metric\":\"pwcet_us\",\"detail\":\"p(latency > 2000 us in an hour) < 1e-09, 95 % confidence,"
                        + " assumptions checked (pwcet_us 412.5 <= 2000)\"}]},\"pwcet\":{\"estimates\":[]}}")));
    }

    @Test
    void elseTheEstimatesLevelOrItsRefusalAndNothingWithoutOne() {
        assertEquals("latency exceeded with p 1e-09 in an hour: 300.0 us (95 % upper bound 350.5 us), assumptions checked",
                PwcetLine.of(report("{\"verdict\":{\"checks\":[]},\"pwcet\":{\"estimates\":[{\"scope\":\"cpu0\","
                        + "\"applicable\":true,\"levels\":[{\"probability\":1.0E-6,\"per\":\"hour\",\"ns\":1,\"highNs\":2},"
                        + "{\"probability\":1.0E-9,\"per\":\"hour\",\"ns\":300000,\"highNs\":350500}]}]}}")));
        assertEquals("not applicable: the halves differ", PwcetLine.of(report("{\"pwcet\":{\"estimates\":[{\"scope\":"
                + "\"cell\",\"applicable\":false,\"refusal\":\"not applicable: the halves differ\"}]}}")));
        assertNull(PwcetLine.of(report("{\"verdict\":{\"checks\":[]}}")));
        assertNull(PwcetLine.of(null));
        assertNull(PwcetLine.of(report("{\"pwcet\":{\"estimates\":[{\"applicable\":\"yes\"}]}}")), "a wrong type is no line");
    }
}
