package rtbox.mqtt.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class LiveCodecTest {
    static final Instant T = Instant.parse("2026-12-06T20:00:00.5Z");

    @Test
    void aPlanCellsLiveFiguresTravel() throws Exception {
        Live l = new Live("a1", T, "r1", null, "quick", 2, 2, "pipe", 40,
                List.of(new LiveLine(0, 3, 1200, 2.5, 3.25, 3.0, 41.75), new LiveLine(1, 4, 0, 0, 0, Double.NaN, 0)));
        String topic = Topics.live("a1");
        assertEquals("rtbox/v1/up/a1/live", topic);
        assertEquals(Topic.Kind.LIVE, Topics.parse(topic).kind());
        assertEquals(topic, Topics.parse(topic).toString());
        byte[] p = LiveCodec.encode(l);
        String json = new String(p, StandardCharsets.UTF_8);
        assertFalse(json.contains("NaN"), json);
        Live back = LiveCodec.decode(topic, p);
        assertEquals(l.run(), back.run());
        assertEquals(2, back.cell());
        assertEquals("pipe", back.cellName());
        assertEquals(40, back.percent());
        assertEquals(l.threads().get(0), back.threads().get(0));
        assertTrue(Double.isNaN(back.threads().get(1).avgUs()));
    }

    @Test
    void aSingleRunHasItsProbeAndNoCell() throws Exception {
        Live l = new Live("a1", T, "r1", "timer", null, null, null, null, 0, List.of());
        Live back = LiveCodec.decode(Topics.live("a1"), LiveCodec.encode(l));
        assertEquals("timer", back.probe());
        assertEquals(null, back.cell());
        assertTrue(back.threads().isEmpty());
    }

    @Test
    void badLiveMessagesNameTheField() {
        byte[] ok = LiveCodec.encode(new Live("a1", T, "r1", "timer", null, null, null, null, 10, List.of()));
        ProtocolException other = assertThrows(ProtocolException.class, () -> LiveCodec.decode(Topics.live("b1"), ok));
        assertEquals("$.appliance", other.field());
        String bad = new String(ok, StandardCharsets.UTF_8).replace("\"percent\":10", "\"percent\":140");
        assertEquals("$.percent", assertThrows(ProtocolException.class,
                () -> LiveCodec.decode(Topics.live("a1"), bad.getBytes(StandardCharsets.UTF_8))).field());
        String thread = new String(ok, StandardCharsets.UTF_8).replace("\"threads\":[]",
                "\"threads\":[{\"thread\":0,\"cpu\":0,\"samples\":\"7\",\"min_us\":1,\"act_us\":1,\"max_us\":1}]");
        assertEquals("$.threads[0].samples", assertThrows(ProtocolException.class,
                () -> LiveCodec.decode(Topics.live("a1"), thread.getBytes(StandardCharsets.UTF_8))).field());
        assertEquals("topic", assertThrows(ProtocolException.class,
                () -> LiveCodec.decode(Topics.status("a1"), ok)).field());
    }
}
