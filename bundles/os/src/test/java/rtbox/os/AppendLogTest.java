package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


class AppendLogTest {
    @TempDir
    Path dir;

    @Test
    void recordsReadBackInOrder() throws Exception {
        AppendLog j = new AppendLog(dir.resolve("sub/results.journal"));
        j.append("{\"a\":1}");
        j.append("{\"b\":\"é\"}");
        AppendLog.Contents c = j.read();
        assertEquals(List.of("{\"a\":1}", "{\"b\":\"é\"}"), c.records());
        assertEquals(List.of(), c.damaged());
    }

    @Test
    void aTornTailIsSkippedAndTheNextAppendStartsClean() throws Exception {
        Path f = dir.resolve("results.journal");
        AppendLog j = new AppendLog(f);
        j.append("{\"n\":1}");
        j.append("{\"n\":2}");
        j.append("{\"n\":3,\"text\":\"a longer record that the power cut will tear\"}");
        long size = Files.size(f);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(size - 20);
        }
        AppendLog.Contents c = j.read();
        assertEquals(List.of("{\"n\":1}", "{\"n\":2}"), c.records());
        assertEquals(1, c.damaged().size());
        assertTrue(c.damaged().get(0).startsWith("line 3 ("), c.damaged().toString());
        assertTrue(c.damaged().get(0).contains("the end of the file"), c.damaged().toString());
        j.append("{\"n\":4}");
        c = j.read();
        assertEquals(List.of("{\"n\":1}", "{\"n\":2}", "{\"n\":4}"), c.records());
        assertEquals(1, c.damaged().size(), "the torn bytes stay, skipped, on their own line");
    }

    @Test
    void aFlippedByteIsCaughtByTheChecksum() throws Exception {
        Path f = dir.resolve("results.journal");
        AppendLog j = new AppendLog(f);
        j.append("{\"n\":1}");
        j.append("{\"n\":2}");
        byte[] b = Files.readAllBytes(f);
        b[b.length - 3] = '7';
        Files.write(f, b);
        AppendLog.Contents c = j.read();
        assertEquals(List.of("{\"n\":1}"), c.records());
        assertTrue(c.damaged().get(0).endsWith("checksum mismatch"), c.damaged().toString());
    }

    @Test
    void retainKeepsTheChosenRecordsInOrderDropsDamageAndAppendsGoOn() throws Exception {
        Path f = dir.resolve("results.journal");
        AppendLog j = new AppendLog(f);
        for (int i = 1; i <= 5; i++) {
            j.append("{\"n\":" + i + "}");
        }
        Files.writeString(f, "torn", java.nio.file.StandardOpenOption.APPEND);
        assertEquals(2, j.retain(r -> r.contains("2") || r.contains("4")));
        AppendLog.Contents c = j.read();
        assertEquals(List.of("{\"n\":2}", "{\"n\":4}"), c.records());
        assertEquals(List.of(), c.damaged());
        j.append("{\"n\":6}");
        assertEquals(List.of("{\"n\":2}", "{\"n\":4}", "{\"n\":6}"), j.read().records());
        assertEquals(List.of(f.getFileName().toString()), listNames(), "no temporary file left");
    }

    @Test
    void aRetainThatFailsLeavesTheOldLogWhole() throws Exception {
        Path f = dir.resolve("results.journal");
        AppendLog j = new AppendLog(f);
        j.append("{\"n\":1}");
        j.append("{\"n\":2}");
        byte[] before = Files.readAllBytes(f);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> j.retain(r -> {
            throw new IllegalStateException("no");
        }));
        org.junit.jupiter.api.Assertions.assertArrayEquals(before, Files.readAllBytes(f));
        assertEquals(List.of(f.getFileName().toString()), listNames(), "no temporary file left");
    }

    private List<String> listNames() throws java.io.IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** kill -9 of a process in the middle of appending: every record it reported is there, the rest is skipped. */
    @Test
    void survivesKillDashNineMidWrite() throws Exception {
        Path f = dir.resolve("results.journal");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                AppendLogWriterMain.class.getName(), f.toString()).redirectErrorStream(true).start();
        int confirmed = -1;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("appended ")) {
                    confirmed = Integer.parseInt(line.substring(9));
                    if (confirmed >= 8) {
                        // SIGKILL while the next big record is being written
                        p.destroyForcibly();
                        break;
                    }
                } else {
                    throw new AssertionError("child said: " + line);
                }
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertTrue(confirmed >= 8, "the child appended records");
        AppendLog j = new AppendLog(f);
        AppendLog.Contents c = j.read();
        assertTrue(c.records().size() >= confirmed + 1, "no reported record lost: " + c.records().size() + " < "
                + (confirmed + 1));
        for (int i = 0; i < c.records().size(); i++) {
            assertTrue(c.records().get(i).startsWith("{\"seq\":" + i + ","), "record " + i + " in order");
        }
        assertTrue(c.damaged().size() <= 1, "at most the one torn tail: " + c.damaged());
        j.append("{\"after\":true}");
        AppendLog.Contents again = j.read();
        assertEquals(c.records().size() + 1, again.records().size());
        assertEquals("{\"after\":true}", again.records().get(again.records().size() - 1));
    }

    @Test
    void aRewriteKeepsOnlyTheGivenRecordsAndAppendsGoOnAfterIt() throws Exception {
        Path f = dir.resolve("requests.log");
        AppendLog j = new AppendLog(f);
        for (int i = 0; i < 10; i++) {
            j.append("record " + i);
        }
        j.rewrite(java.util.List.of("record 8", "record 9"));
        j.append("record 10");
        AppendLog.Contents c = j.read();
        assertEquals(java.util.List.of("record 8", "record 9", "record 10"), c.records());
        assertEquals(java.util.List.of(), c.damaged());
    }
}
