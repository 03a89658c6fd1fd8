package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TscTest {
    private static Tsc tsc;

    @BeforeAll
    static void open() {
        tsc = Tsc.open();
        System.out.println("[tsc] " + tsc + ", call path: " + tsc.callPath() + ", calibration spread "
                + tsc.calibrationSpread() + ", flags: " + Tsc.cpuFlags());
    }

    @AfterAll
    static void close() {
        tsc.close();
    }

    @Test
    void runsTheStubOnX86() {
        // The dev machine and the board are both x86: the fallback here would be a bug.
        assertTrue(tsc.isTsc(), "fell back: " + tsc.fallbackReason());
        assertNull(tsc.fallbackReason());
        assertEquals(Tsc.CLOCK_TSC, tsc.clock());
        assertTrue(tsc.callPath().contains("method handle"), tsc.callPath());
    }

    @Test
    void isMonotonic() {
        long last = tsc.read();
        for (int i = 0; i < 1_000_000; i++) {
            long now = tsc.read();
            assertTrue(now >= last, "TSC went back from " + last + " to " + now);
            last = now;
        }
    }

    @Test
    void calibratedRateWithinOnePercentOfAnIndependentEstimate() throws Exception {
        long t0 = System.nanoTime();
        long c0 = tsc.read();
        Thread.sleep(500); // fixed: the interval both clocks measure
        long c1 = tsc.read();
        long t1 = System.nanoTime();
        double estimate = (c1 - c0) * 1e9 / (t1 - t0);
        double error = Math.abs(tsc.hz() - estimate) / estimate;
        System.out.printf("[tsc] calibrated %.0f Hz, independent 0.5 s estimate %.0f Hz, difference %.4f %%%n",
                tsc.hz(), estimate, error * 100);
        assertTrue(error < 0.01, "calibrated " + tsc.hz() + " Hz vs estimate " + estimate + " Hz");
        assertEquals(1_000_000L, tsc.toNanos(tsc.ticksFor(1_000_000L)), 2);
    }

    @Test
    void stubPageIsNeverWritableAndExecutable() throws Exception {
        long address = tsc.stubAddress();
        String line = null;
        for (String l : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] range = l.substring(0, l.indexOf(' ')).split("-");
            long from = Long.parseUnsignedLong(range[0], 16), to = Long.parseUnsignedLong(range[1], 16);
            if (Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0) {
                line = l;
            }
        }
        assertNotNull(line, "stub page not in /proc/self/maps");
        String perms = line.split("\\s+")[1];
        assertEquals("r-xp", perms, line);
        List<String> all = Files.readAllLines(Path.of("/proc/self/maps"));
        assertTrue(all.stream().noneMatch(l -> l.startsWith(Long.toHexString(address) + "-") && l.contains("wx")));
    }

    @Test
    void readAllocatesNothingAndCostIsMeasured() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 200_000; i++) {
            sink += tsc.read();
        }
        int n = 1_000_000;
        long before = mx.getCurrentThreadAllocatedBytes();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += tsc.read();
        }
        long t1 = System.nanoTime();
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        long n0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += System.nanoTime();
        }
        long n1 = System.nanoTime();
        // The public Function.invokeLong, for comparison.
        com.sun.jna.Function f = com.sun.jna.Function.getFunction(new com.sun.jna.Pointer(tsc.stubAddress()));
        Object[] none = new Object[0];
        for (int i = 0; i < 200_000; i++) {
            sink += f.invokeLong(none);
        }
        long fb = mx.getCurrentThreadAllocatedBytes();
        long f0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += f.invokeLong(none);
        }
        long f1 = System.nanoTime();
        long fAllocated = mx.getCurrentThreadAllocatedBytes() - fb;
        System.out.printf("[tsc] rdtsc via method handle: %.1f ns/call, %d bytes allocated in %d calls; "
                + "Function.invokeLong: %.1f ns/call, %.1f bytes/call; System.nanoTime: %.1f ns/call (%d)%n",
                (t1 - t0) / (double) n, allocated, n, (f1 - f0) / (double) n, fAllocated / (double) n,
                (n1 - n0) / (double) n, sink & 1);
        // A few hundred bytes of slack: the MXBean call itself and JIT bookkeeping.
        assertTrue(allocated < 4096, allocated + " bytes allocated by " + n + " reads");
    }

    @Test
    void fallsBackToMonotonicWithTheReason() {
        assertNull(Tsc.stubFor("aarch64"));
        assertEquals(3, Tsc.stubFor("i686").length);
        assertEquals(10, Tsc.stubFor("amd64").length);
        try (Tsc m = Tsc.monotonic("test: no stub")) {
            assertTrue(!m.isTsc());
            assertEquals(Tsc.CLOCK_MONOTONIC, m.clock());
            assertEquals("test: no stub", m.fallbackReason());
            assertEquals(1e9, m.hz());
            long a = m.read(), b = m.read();
            assertTrue(b >= a);
            assertEquals(12345, m.ticksFor(12345));
        }
    }

    @Test
    void readAfterCloseFailsInsteadOfCrashing() {
        Tsc t = Tsc.open();
        t.read();
        t.close();
        t.close();
        if (t.isTsc()) {
            assertThrows(IllegalStateException.class, t::read);
        }
    }

    @Test
    void invarianceFromFlags() {
        assertTrue(Tsc.invariant("tsc constant_tsc nonstop_tsc"));
        assertTrue(!Tsc.invariant("tsc constant_tsc"));
        assertNotNull(Tsc.invarianceWarning("tsc"));
        assertNull(Tsc.invarianceWarning("tsc constant_tsc tsc_reliable nonstop_tsc"));
    }
}
