package rtbox.workload.blockio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.WorkloadHandle;

class BlockIoWorkloadTest {
    static final RunContext CTX = new RunContext() {
        @Override public boolean stopRequested() { return false; }
        @Override public void progress(double fraction) { }
        @Override public void event(String kind, String detail) { }
    };
    static final long FILE_BYTES = 4L * 1024 * 1024;
    static Path file;

    @BeforeAll
    static void makeFile() throws IOException {
        // target/ is on a disk file system; /tmp may be tmpfs, which refuses O_DIRECT.
        Path dir = Files.createDirectories(Path.of("target", "blockio-test"));
        file = dir.resolve("data.bin");
        if (!Files.exists(file) || Files.size(file) != FILE_BYTES) {
            byte[] chunk = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(file)) {
                for (long n = 0; n < FILE_BYTES; n += chunk.length) {
                    out.write(chunk);
                }
            }
        }
    }

    static Map<String, String> params(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("path", file.toString());
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static Map<String, Double> runToEnd(Map<String, String> p) throws Exception {
        BlockIoRun run = (BlockIoRun) new BlockIoWorkload().start(p, CTX);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (run.running() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return run.stop();
    }

    static void assertNoThreadLeft() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertTrue(!t.getName().equals(BlockIoRun.THREAD_NAME) || !t.isAlive(), "thread left: " + t.getName());
        }
    }

    @Test
    void readsTimesBlockSizeIsBytes() throws Exception {
        for (String bs : new String[] {"512", "4k", "1M"}) {
            Map<String, Double> f = runToEnd(params("bs", bs, "count", "300"));
            assertEquals(300.0, f.get("reads"), bs + " " + f);
            assertEquals(f.get("reads") * f.get("block_bytes"), f.get("bytes"), bs + " " + f);
            assertTrue(f.get("mb_per_s") > 0, f.toString());
            assertTrue(f.get("read_us_max") >= f.get("read_us_p50"), f.toString());
            assertEquals(0.0, f.get("errors"), f.toString());
        }
        assertNoThreadLeft();
    }

    @Test
    void wrapsAtTheEndOrStopsThere() throws Exception {
        // 1M blocks: 4 per pass; 10 reads wrap twice.
        Map<String, Double> f = runToEnd(params("bs", "1M", "count", "10"));
        assertEquals(10.0, f.get("reads"));
        assertEquals(2.0, f.get("wraps"), f.toString());
        f = runToEnd(params("bs", "1M", "wrap", "false"));
        assertEquals(4.0, f.get("reads"), f.toString());
        assertEquals((double) FILE_BYTES, f.get("bytes"));
    }

    @Test
    void rateLimitHolds() throws Exception {
        // 4 MB/s of 64k blocks for ~0.5 s: about 2 MB.
        WorkloadHandle h = new BlockIoWorkload().start(params("bs", "64k", "rate", "4"), CTX);
        Thread.sleep(500); // fixed: the window the rate is measured over
        Map<String, Double> f = h.stop();
        assertTrue(f.get("mb_per_s") < 4.5 && f.get("mb_per_s") > 3.0, f.toString());
    }

    @Test
    void stopsWithin100msLeavingNothing() throws Exception {
        WorkloadHandle h = new BlockIoWorkload().start(params("bs", "4k"), CTX);
        Thread.sleep(200); // fixed: stopped while it writes, which it does from its start
        long t0 = System.nanoTime();
        Map<String, Double> f = h.stop();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms <= 100, "stop took " + ms + " ms");
        assertTrue(f.get("reads") > 0);
        assertNoThreadLeft();
        for (String fd : new java.io.File("/proc/self/fd").list()) {
            Path target;
            try {
                target = Files.readSymbolicLink(Path.of("/proc/self/fd", fd));
            } catch (IOException e) {
                continue;
            }
            assertTrue(!target.endsWith("data.bin"), "the data file is still open as fd " + fd);
        }
    }

    @Test
    void badParametersAreNamed() throws Exception {
        RtboxException e = assertThrows(RtboxException.class, () -> new BlockIoWorkload().start(Map.of(), CTX));
        assertEquals("path", e.subject());
        e = assertThrows(RtboxException.class,
                () -> new BlockIoWorkload().start(Map.of("path", "/no/such/disk"), CTX));
        assertTrue(e.getMessage().contains("/no/such/disk does not exist"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> new BlockIoWorkload().start(params("bs", "1000"), CTX));
        assertTrue(e.getMessage().contains("not a multiple of 512"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> new BlockIoWorkload().start(params("bs", "2M"), CTX));
        assertEquals("bs", e.subject());
        e = assertThrows(RtboxException.class, () -> new BlockIoWorkload().start(params("rate", "fast"), CTX));
        assertEquals("rate", e.subject());
        e = assertThrows(RtboxException.class, () -> new BlockIoWorkload().start(params("write", "yes"), CTX));
        assertTrue(e.getMessage().contains("unknown parameter write"), e.getMessage());
        Path small = file.resolveSibling("small.bin");
        Files.write(small, new byte[1024]);
        e = assertThrows(RtboxException.class,
                () -> new BlockIoWorkload().start(Map.of("path", small.toString(), "bs", "4k"), CTX));
        assertTrue(e.getMessage().contains("less than one block"), e.getMessage());
        e = assertThrows(RtboxException.class,
                () -> new BlockIoWorkload().start(Map.of("path", file.getParent().toString()), CTX));
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
        Path shm = Path.of("/dev/shm/rtbox-blockio-test");
        if (Files.isDirectory(shm.getParent())) {
            Files.write(shm, new byte[8192]);
            try {
                // tmpfs refused O_DIRECT before Linux 6.6; where it still does, the error says so.
                try {
                    new BlockIoWorkload().start(Map.of("path", shm.toString(), "bs", "4k"), CTX).stop();
                } catch (RtboxException x) {
                    assertTrue(x.getMessage().contains("O_DIRECT"), x.getMessage());
                }
            } finally {
                Files.deleteIfExists(shm);
            }
        }
    }

    @Test
    void neverOpensForWriting() throws Exception {
        // A file without write permission reads fine: the open asks for reading only.
        Path ro = file.resolveSibling("readonly.bin");
        Files.copy(file, ro, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        ro.toFile().setWritable(false, false);
        try {
            Map<String, Double> f = runToEnd(Map.of("path", ro.toString(), "bs", "64k", "count", "10"));
            assertEquals(10.0, f.get("reads"));
        } finally {
            ro.toFile().setWritable(true);
            Files.delete(ro);
        }
    }

    @Test
    void readsAreBusyWindowsForTheRunner() throws Exception {
        // Paced at 4 MB/s, 4 KiB reads are about 1 ms apart: windows of their own, unless a
        // stall of this thread made the pacing catch up with reads back to back (one window).
        long t0 = System.nanoTime();
        BlockIoRun run = (BlockIoRun) new BlockIoWorkload().start(params("bs", "4k", "rate", "4", "count", "200"), CTX);
        assertTrue(run instanceof rtbox.core.toolkit.BusyWindows, "the runner finds the windows through BusyWindows");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (run.running() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        long[] w = run.busyWindows();
        long t1 = System.nanoTime();
        Map<String, Double> f = run.stop();
        assertEquals(200.0, f.get("reads"), f.toString());
        assertTrue(w.length >= 2 && w.length % 2 == 0 && w.length / 2 <= 200, "windows: " + w.length / 2);
        long busyNs = 0;
        for (int i = 0; i < w.length; i += 2) {
            assertTrue(w[i] >= t0 && w[i] < w[i + 1] && w[i + 1] <= t1, "window " + i / 2 + " outside the run");
            if (i > 0) {
                assertTrue(w[i] - w[i - 1] > ReadWindows.GAP_NS, "windows " + (i / 2 - 1) + " and " + i / 2
                        + " are " + (w[i] - w[i - 1]) + " ns apart: they should be one");
            }
            busyNs += w[i + 1] - w[i];
        }
        // The windows hold every read's time (the histogram's min is at most the shortest read's).
        assertTrue(busyNs / 1e3 >= f.get("reads") * f.get("read_us_min"), busyNs + " ns busy, " + f);
        assertTrue(!run.active());
        assertNoThreadLeft();
    }
}
