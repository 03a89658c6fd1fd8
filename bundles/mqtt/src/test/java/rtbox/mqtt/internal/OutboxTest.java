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

    /**
     * A broker acknowledges before it saved: an acknowledged message stays on disk for a while
     * and goes again, in order, when the connection drops (mosquitto SIGKILLed during its save
     * lost one in ten kills); after a clean disconnect it is removed.
     */
    @Test
    void acknowledgedMessagesGoAgainWhenTheConnectionDropsSoonAfter() throws Exception {
        Outbox o = new Outbox(dir, 1 << 20);
        long a = o.add("t/a", new byte[] {1});
        long b = o.add("t/b", new byte[] {2});
        o.add("t/c", new byte[] {3});
        o.delivered(a);
        o.delivered(b);
        assertEquals(1, o.size());
        assertEquals("t/c", o.first().topic());
        assertTrue(Files.exists(dir.resolve(String.format("%016d.msg.sent", a))), "kept until it is surely saved");
        assertEquals(2, o.redeliver());
        assertEquals(3, o.size());
        assertEquals("t/a", o.first().topic());
        o.delivered(a);
        o.forgetDelivered();
        assertFalse(Files.exists(dir.resolve(String.format("%016d.msg.sent", a))));
        assertEquals(0, o.redeliver());
        assertEquals("t/b", o.first().topic());
        // A crash of the appliance: a kept file is no message at the next start, and is removed.
        o.delivered(b);
        assertEquals(1, new Outbox(dir, 1 << 20).size());
        assertFalse(Files.exists(dir.resolve(String.format("%016d.msg.sent", b))));
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

    /** A message file of the first format: topic length, topic, payload, no checksum. */
    private static byte[] firstFormat(String topic, String payload) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        byte[] p = payload.getBytes(StandardCharsets.UTF_8);
        return java.nio.ByteBuffer.allocate(4 + t.length + p.length).putInt(t.length).put(t).put(p).array();
    }

    @Test
    void damagedAndForeignFilesAreSetAsideAndTheRestGoes() throws Exception {
        Outbox o = new Outbox(dir, 1 << 20);
        long good1 = o.add("rtbox/v1/up/a1/reply/r1", "{\"ok\":1}".getBytes(StandardCharsets.UTF_8));
        long flipped = o.add("rtbox/v1/up/a1/reply/r2", "{\"ok\":2}".getBytes(StandardCharsets.UTF_8));
        long good2 = o.add("rtbox/v1/up/a1/reply/r3", "{\"ok\":3}".getBytes(StandardCharsets.UTF_8));
        Path f = dir.resolve(String.format("%016d.msg", flipped));
        byte[] b = Files.readAllBytes(f);
        b[b.length - 2] ^= 0x04; // one bit of the payload
        Files.write(f, b);
        Files.write(dir.resolve("0000000000000010.msg"), new byte[0]);
        Files.write(dir.resolve("0000000000000011.msg"), new byte[] {0, 1});
        Files.write(dir.resolve("0000000000000012.msg"), firstFormat("rtbox/v1/up/#", "{}"));
        Files.write(dir.resolve("0000000000000013.msg"), firstFormat("rtbox/v1/up/a1/reply/old", "{\"old\":1}"));
        Files.write(dir.resolve("junk.msg"), "junk".getBytes(StandardCharsets.UTF_8));

        Outbox again = new Outbox(dir, 1 << 20); // a stray junk.msg threw NumberFormatException here
        assertTrue(Files.exists(dir.resolve("junk.msg.bad")));
        java.util.List<String> sent = new java.util.ArrayList<>();
        for (Outbox.Entry e = again.first(); e != null; e = again.first()) {
            sent.add(e.topic() + " " + new String(e.payload(), StandardCharsets.UTF_8));
            again.remove(e.id());
        }
        assertEquals(java.util.List.of("rtbox/v1/up/a1/reply/r1 {\"ok\":1}", "rtbox/v1/up/a1/reply/r3 {\"ok\":3}",
                "rtbox/v1/up/a1/reply/old {\"old\":1}"), sent, "the good ones, the old format too, in order");
        for (String bad : new String[] {String.format("%016d.msg", flipped), "0000000000000010.msg",
                "0000000000000011.msg", "0000000000000012.msg"}) {
            assertTrue(Files.exists(dir.resolve(bad + ".bad")), bad + " not set aside");
        }
        assertEquals(0, again.bytes());
        assertTrue(good2 > good1);
    }
}
