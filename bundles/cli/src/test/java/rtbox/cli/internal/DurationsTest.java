package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;

class DurationsTest {
    @Test
    void cyclictestSuffixes() throws RtboxException {
        assertEquals(10_000_000_000L, Durations.parseNanos("duration", "10"));
        assertEquals(10_000_000_000L, Durations.parseNanos("duration", "10s"));
        assertEquals(300_000_000_000L, Durations.parseNanos("duration", "5m"));
        assertEquals(3_600_000_000_000L, Durations.parseNanos("duration", "1h"));
        assertEquals(86_400_000_000_000L, Durations.parseNanos("duration", "1d"));
        assertEquals(250_000_000L, Durations.parseNanos("warmup", "250ms"));
    }

    @Test
    void negativeAndGarbageAreNamed() {
        RtboxException e = assertThrows(RtboxException.class, () -> Durations.parseNanos("duration", "-5s"));
        assertEquals("duration", e.subject());
        assertTrue(e.getMessage().contains("'-5s' is negative"), e.getMessage());
        assertThrows(RtboxException.class, () -> Durations.parseNanos("duration", "soon"));
    }
}
