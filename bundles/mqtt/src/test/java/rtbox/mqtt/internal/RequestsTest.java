package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestsTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void repliesSurviveAReopenAndACommandWithoutReplyIsReportedInterrupted() throws Exception {
        Path f = dir.resolve("requests.log");
        Requests r = new Requests(f, 100);
        r.begin("r1", "install");
        r.answer("r1", b("{\"code\":200}"));
        r.begin("r2", "update");
        // The process dies here: r2 was executing, with no reply.
        Requests again = new Requests(f, 100);
        assertArrayEquals(b("{\"code\":200}"), again.reply("r1"));
        assertNull(again.reply("r2"));
        assertEquals(Map.of("r2", "update"), again.interrupted());
        again.answer("r2", b("{\"code\":500}"));
        assertEquals(Map.of(), new Requests(f, 100).interrupted());
        assertArrayEquals(b("{\"code\":500}"), new Requests(f, 100).reply("r2"));
    }

    @Test
    void aTornOrFlippedLineIsSkippedAndTheRestRead() throws Exception {
        Path f = dir.resolve("requests.log");
        Requests r = new Requests(f, 100);
        r.begin("a", "status");
        r.answer("a", b("first"));
        r.begin("b", "status");
        r.answer("b", b("second"));
        byte[] all = Files.readAllBytes(f);
        // Flip a byte inside the reply of "a" (line 2), and leave half a record at the end.
        String text = new String(all, StandardCharsets.ISO_8859_1);
        int line2 = text.indexOf('\n') + 1;
        all[text.indexOf("D a ", line2) + 5] ^= 0x01;
        Files.write(f, all);
        Files.write(f, b("0badc0de D c Zm9v"), StandardOpenOption.APPEND);
        Requests back = new Requests(f, 100);
        assertNull(back.reply("a"), "a flipped byte is not read as a reply");
        assertNull(back.reply("c"), "a torn record is not read");
        assertArrayEquals(b("second"), back.reply("b"));
        assertEquals(2, back.damaged().size(), back.damaged().toString());
        // Appending after a torn tail starts on a line of its own.
        back.begin("d", "status");
        back.answer("d", b("fourth"));
        assertArrayEquals(b("fourth"), new Requests(f, 100).reply("d"));
    }

    @Test
    void onlyTheLastRememberedAreKeptAndTheFileStaysBounded() throws Exception {
        Path f = dir.resolve("requests.log");
        Requests r = new Requests(f, 16);
        for (int i = 0; i < 500; i++) {
            r.begin("r" + i, "status");
            r.answer("r" + i, b("reply " + i));
        }
        Requests back = new Requests(f, 16);
        assertEquals(16, back.size());
        assertNull(back.reply("r483"));
        assertArrayEquals(b("reply 484"), back.reply("r484"));
        assertArrayEquals(b("reply 499"), back.reply("r499"));
        long lines = Files.readAllLines(f).size();
        assertTrue(lines <= 2 * 16 + 2, lines + " lines");
    }

    /**
     * Issue 17 case 3: replies of 10 kB each are kept up to the byte limit, not the count (1000
     * of them held 10 MB of a 48 MB heap), in memory and in the file; the newest always.
     */
    @Test
    void repliesAreBoundedInBytesAsWellAsInCount() throws Exception {
        Path f = dir.resolve("requests.log");
        long limit = 100 * 1024;
        Requests r = new Requests(f, 1000, limit);
        byte[] reply = new byte[10 * 1024];
        java.util.Arrays.fill(reply, (byte) 'x');
        for (int i = 0; i < 300; i++) {
            r.begin("r" + i, "bundles");
            r.answer("r" + i, reply);
            assertTrue(r.bytes() <= limit, r.bytes() + " bytes kept");
            assertTrue(Files.size(f) < 3 * limit * 4 / 3, Files.size(f) + " bytes in " + f);
        }
        assertEquals(10, r.size());
        assertArrayEquals(reply, r.reply("r299"));
        assertNull(r.reply("r289"));
        Requests back = new Requests(f, 1000, limit);
        assertEquals(10, back.size());
        assertArrayEquals(reply, back.reply("r290"));
        // A reply larger than the whole limit is still kept, alone, for its repeat.
        byte[] big = new byte[(int) limit * 2];
        r.answer("big", big);
        assertEquals(1, r.size());
        assertArrayEquals(big, r.reply("big"));
    }

    /**
     * A requests.log of 40 MB (written before replies were cut: 44 MB after 30 commands) made
     * the next start fail in load with an OutOfMemoryError. It is read record by record, a
     * record longer than the limit is skipped without being held, and the rest is read.
     */
    @Test
    void aHugeOldFileLoadsInBoundedMemory() throws Exception {
        Path f = dir.resolve("requests.log");
        rtbox.os.AppendLog log = new rtbox.os.AppendLog(f);
        log.append("D old " + java.util.Base64.getEncoder().encodeToString(new byte[30 * 1024 * 1024]));
        for (int i = 0; i < 1000; i++) {
            log.append("D r" + i + " " + java.util.Base64.getEncoder().encodeToString(new byte[10_000]));
        }
        log.append("D last " + java.util.Base64.getEncoder().encodeToString(b("the last")));
        assertTrue(Files.size(f) > 40_000_000L);
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long before = rt.totalMemory() - rt.freeMemory();
        Requests back = new Requests(f, 1000, 256 * 1024);
        System.gc();
        long held = rt.totalMemory() - rt.freeMemory() - before;
        assertArrayEquals(b("the last"), back.reply("last"));
        assertNull(back.reply("old"));
        assertTrue(back.damaged().get(0).contains("longer than"), back.damaged().toString());
        assertTrue(back.bytes() <= 256 * 1024, back.bytes() + " bytes kept");
        assertTrue(held < 8 * 1024 * 1024, held + " bytes held after loading");
    }
}
