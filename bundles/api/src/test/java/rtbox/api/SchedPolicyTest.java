package rtbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SchedPolicyTest {
    @Test
    void parsesCyclictestSpellings() throws RtboxException {
        assertEquals(SchedPolicy.OTHER, SchedPolicy.parse("normal"));
        assertEquals(SchedPolicy.FIFO, SchedPolicy.parse(" FIFO "));
        assertEquals(SchedPolicy.RR, SchedPolicy.parse("rr"));
        assertEquals(4, SchedPolicy.ISO.kernelValue);
    }

    @Test
    void unknownPolicyNamesTheValue() {
        RtboxException e = assertThrows(RtboxException.class, () -> SchedPolicy.parse("deadline"));
        assertEquals("policy", e.subject());
        assertTrue(e.getMessage().contains("'deadline'"), e.getMessage());
    }

    @Test
    void parametersAreImmutableCopies() {
        int[] cpus = {1, 2};
        RunParameters p = RunParameters.builder().cpus(cpus).option("k", "v").build();
        cpus[0] = 7;
        assertEquals(1, p.cpus[0]);
        assertEquals("v", p.toBuilder().build().option("k", "none"));
        assertThrows(UnsupportedOperationException.class, () -> p.options.put("x", "y"));
    }
}
