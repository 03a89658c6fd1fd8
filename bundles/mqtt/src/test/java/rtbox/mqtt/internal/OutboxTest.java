package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutboxTest {
    @TempDir
    Path dir;

    @Test
    void keepsOrderAcrossReopenAndRemovesOnlyWhatWasAcknowledged() throws Exception {
        Outbox o = new Outbox(dir, 1 << 20);
        for (int i = 1; i <= 3; i++) {
            o.add("t/" + i, ("m" + i).getBytes(StandardCharsets.UTF_8));
        }
        Outbox.Entry first = o.first();
        assertEquals("t/1", first.topic());
        o.remove(first.id());
        // A crash: the process is gone, the files stay.
        Outbox again = new Outbox(dir, 1 << 20);
        assertEquals(2, again.size());
        assertEquals("t/2", again.first().topic());
        assertArrayEquals("m2".getBytes(StandardCharsets.UTF_8), again.first().payload());
        long next = again.add("t/4", new byte[0]);
        assertTrue(next > again.first().id(), "ids must keep growing after a reopen");
        again.remove(again.first().id());
        again.remove(again.first().id());
        assertEquals("t/4", again.first().topic());
        again.remove(again.first().id());
        assertNull(again.first());
        assertEquals(0, again.bytes());
    }

    @Test
    void aCutShortWriteIsNotAMessage() throws Exception {
        Files.write(dir.resolve("0000000000000007.msg.tmp"), new byte[] {0, 0});
        Outbox o = new Outbox(dir, 1 << 20);
        assertNull(o.first());
        assertFalse(Files.exists(dir.resolve("0000000000000007.msg.tmp")));
    }

    @Test
    void fullAtTheLimitButNothingDropped() throws Exception {
        Outbox o = new Outbox(dir, 100);
        o.add("t", new byte[60]);
        assertFalse(o.full());
        o.add("t", new byte[60]);
        assertTrue(o.full());
        o.add("t", new byte[60]);
        assertEquals(3, o.size(), "a full outbox still keeps what is added");
    }
}
