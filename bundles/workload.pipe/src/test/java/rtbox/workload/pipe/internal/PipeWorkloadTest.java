package rtbox.workload.pipe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.WorkloadHandle;

class PipeWorkloadTest {
    static final RunContext CTX = new RunContext() {
        @Override public boolean stopRequested() { return false; }
        @Override public void progress(double fraction) { }
        @Override public void event(String kind, String detail) { }
    };

    static Map<String, Double> runToEnd(Map<String, String> params) throws Exception {
        WorkloadHandle h = new PipeWorkload().start(params, CTX);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (h.active() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return h.stop();
    }

    static void assertNoThreadsLeft() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertTrue(!t.getName().startsWith(PipeRun.THREAD_PREFIX) || !t.isAlive(), "thread left: " + t.getName());
        }
    }

    static java.util.Set<String> openFds() throws java.io.IOException {
        java.util.Set<String> fds = new java.util.TreeSet<>();
        try (var dir = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc/self/fd"))) {
            for (var p : dir) {
                try {
                    String target = java.nio.file.Files.readSymbolicLink(p).toString();
                    if (!target.matches("/proc/\\d+/fd")) {
                        fds.add(p.getFileName() + "->" + target);
                    }
                } catch (java.io.IOException e) {
                    // the directory stream's own descriptor
                }
            }
        }
        return fds;
    }

    @Test
    void oneWayThreadsPassesEveryMessage() throws Exception {
        Map<String, Double> f = runToEnd(Map.of("mode", "oneway", "count", "200000"));
        assertEquals(200000.0, f.get("messages"));
        assertTrue(f.get("messages_per_s") > 1000, f.toString());
        assertTrue(f.get("user_s") + f.get("sys_s") > 0, f.toString());
        assertEquals(0.0, f.get("errors"));
        assertNoThreadsLeft();
    }

    @Test
    void roundTripThreadsSwitches() throws Exception {
        Map<String, Double> f = runToEnd(Map.of("mode", "rtt", "count", "20000"));
        assertEquals(20000.0, f.get("round_trips"));
        assertEquals(40000.0, f.get("messages"));
        assertEquals(1.0, f.get("machine_code_loop"), "x86 runs the machine-code loop: " + f);
        assertTrue(f.get("voluntary_switches") > 0, f.toString());
        assertTrue(f.get("switches_per_s") > 0, f.toString());
        assertNoThreadsLeft();
    }

    @Test
    void roundTripThreadsOverJnaOnRequest() throws Exception {
        Map<String, Double> f = runToEnd(Map.of("mode", "rtt", "count", "20000", "loop", "jna"));
        assertEquals(20000.0, f.get("round_trips"));
        assertEquals(0.0, f.get("machine_code_loop"));
        assertEquals(0.0, f.get("errors"), f.toString());
        assertNoThreadsLeft();
    }

    @Test
    void roundTripProcesses() throws Exception {
        Map<String, Double> f = runToEnd(Map.of("mode", "rtt", "ends", "processes", "count", "20000"));
        assertEquals(20000.0, f.get("round_trips"));
        assertTrue(f.get("voluntary_switches") > 0, f.toString());
        assertEquals(0.0, f.get("errors"), f.toString());
    }

    @Test
    void oneWayProcesses() throws Exception {
        Map<String, Double> f = runToEnd(Map.of("mode", "oneway", "ends", "processes", "count", "50001"));
        assertEquals(50001.0, f.get("messages"));
        assertEquals(1.0, f.get("machine_code_loop"), "the reader is a forked machine-code loop: " + f);
        assertTrue(f.get("reader_cpu_share") > 0, "the child's CPU time is counted: " + f);
        assertEquals(0.0, f.get("errors"), f.toString());
        assertEquals(java.util.List.of(), children(), "the forked reader is killed and reaped");
    }

    @Test
    void oneWayThreadsInMachineCodeCountsAnOddCountExactly() throws Exception {
        // The loops pass two messages an iteration; the odd one goes through JNA.
        Map<String, Double> f = runToEnd(Map.of("mode", "oneway", "count", "100001"));
        assertEquals(100001.0, f.get("messages"));
        assertEquals(1.0, f.get("machine_code_loop"), f.toString());
        assertEquals(0.0, f.get("errors"), f.toString());
        assertNoThreadsLeft();
    }

    @Test
    void oneWayOverJnaOnRequest() throws Exception {
        for (String ends : new String[] {"threads", "processes"}) {
            Map<String, Double> f = runToEnd(Map.of("mode", "oneway", "ends", ends, "count", "20001", "loop", "jna"));
            assertEquals(20001.0, f.get("messages"), ends);
            assertEquals(0.0, f.get("machine_code_loop"), ends);
            assertEquals(0.0, f.get("errors"), f.toString());
        }
    }

    /** This JVM's child processes that are still there (a zombie included). */
    static java.util.List<String> children() throws java.io.IOException {
        java.util.List<String> pids = new java.util.ArrayList<>();
        try (var tasks = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : tasks) {
                String c;
                try {
                    c = java.nio.file.Files.readString(t.resolve("children")).trim();
                } catch (java.nio.file.NoSuchFileException gone) {
                    // The thread ended between the listing and the read (a GC or another test's
                    // thread); the kernel hands its children to a live thread of this process.
                    continue;
                }
                if (!c.isEmpty()) {
                    pids.addAll(java.util.List.of(c.split("\\s+")));
                }
            }
        }
        return pids;
    }

    @Test
    void stopsWithin100msLeavingNothing() throws Exception {
        new PipeWorkload().start(Map.of("mode", "rtt", "ends", "processes", "count", "10"), CTX).stop();
        java.util.Set<String> fds = openFds();
        long codePages = anonymousExecutablePages();
        for (String mode : new String[] {"oneway", "rtt"}) {
            for (String ends : new String[] {"threads", "processes"}) {
                WorkloadHandle h = new PipeWorkload().start(Map.of("mode", mode, "ends", ends), CTX);
                Thread.sleep(200);
                assertTrue(h.active());
                long t0 = System.nanoTime();
                Map<String, Double> f = h.stop();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ms <= 100, mode + "/" + ends + " stop took " + ms + " ms");
                assertTrue(f.get("messages") > 0, f.toString());
                assertNoThreadsLeft();
            }
        }
        assertEquals(fds, openFds(), "file descriptors left open");
        assertEquals(codePages, anonymousExecutablePages(), "machine-code loop pages left mapped");
    }

    /** Private anonymous read-execute mappings in /proc/self/maps (where PipeLoop's code lives). */
    static long anonymousExecutablePages() throws java.io.IOException {
        return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps")).stream()
                .map(l -> l.trim().split("\\s+"))
                .filter(f -> f.length == 5 && f[1].equals("r-xp") && f[4].equals("0"))
                .count();
    }

    @Test
    void badParametersAreNamed() {
        RtboxException e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("mode", "both"), CTX));
        assertTrue(e.getMessage().contains("mode 'both'"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("count", "many"), CTX));
        assertEquals("count", e.subject());
        e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("size", "1"), CTX));
        assertTrue(e.getMessage().contains("unknown parameter size"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("priority", "150"), CTX));
        assertEquals("priority", e.subject());
        e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("loop", "asm"), CTX));
        assertEquals("loop", e.subject());
        e = assertThrows(RtboxException.class, () -> new PipeWorkload().start(Map.of("cpu", "99"), CTX));
        assertEquals("cpu", e.subject());
    }
}
