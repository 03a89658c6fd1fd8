package rtbox.ctl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * {@code rtbox ctl gate} reads the control room's answers with rtbox.json (issue 33): a record
 * id or a start's code of 2.5 or 1e30 is a refusal naming its path (exit 2), not record 2; an
 * answer that is not strict JSON is named as such, without the library's text.
 */
class CtlGateJsonTest {
    @Test
    void aFractionOrOutOfRangeNumberInAnAnswerIsRefusedNamingItsPath() {
        JsonObject r = CtlGate.parse("{\"id\":2.5,\"code\":1e30,\"ok\":17}").getAsJsonObject();
        assertEquals("the control room's answer: $.records[3].id: expected a whole number, got 2.5",
                assertThrows(CtlGate.Stop.class, () -> CtlGate.whole(r, "id", "$.records[3].id")).getMessage());
        assertEquals("the control room's answer: $.starts[0].code: expected a whole number, got 1e30",
                assertThrows(CtlGate.Stop.class, () -> CtlGate.whole(r, "code", "$.starts[0].code")).getMessage());
        assertEquals(17, CtlGate.whole(r, "ok", "$.ok"));
    }

    @Test
    void anAnswerThatIsNotStrictJsonIsNamedSo() {
        assertEquals("the control room's answer does not read: $.id: given twice",
                assertThrows(CtlGate.Stop.class, () -> CtlGate.parse("{\"id\":1,\"id\":2}")).getMessage());
    }
}
