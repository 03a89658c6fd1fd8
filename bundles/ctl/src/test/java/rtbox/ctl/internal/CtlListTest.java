package rtbox.ctl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.mqtt.protocol.Status;

/** {@code rtbox ctl list}'s VERSION column, from the appliance's retained status. */
class CtlListTest {
    private static final Instant T = Instant.parse("2026-12-03T12:00:00Z");

    @Test
    void versionAsTheApplianceGaveItOrADashWhenItGaveNone() {
        Status online = new Status("a1", T, Status.ONLINE, T, false, null, null, null, null, null, null,
                List.of("timer"), List.of(), 0L, 0L, "rtbox 0.1.0.202612030910 (git 5d51b53)");
        assertEquals("0.1.0.202612030910 (git 5d51b53)", CtlCommand.version(online));
        Status older = new Status("a2", T, Status.ONLINE, T, false, null, null, null, null, null, null,
                List.of("timer"), List.of(), 0L, 0L);
        assertEquals("-", CtlCommand.version(older), "an appliance from before the field");
        assertEquals("-", CtlCommand.version(Status.offline("a3", T, T)), "the last will carries none");
    }
}
