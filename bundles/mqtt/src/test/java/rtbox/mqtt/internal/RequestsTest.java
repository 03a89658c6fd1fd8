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
}
