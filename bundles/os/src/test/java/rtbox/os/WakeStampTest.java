package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WakeStampTest {

    @Test
    void theMachineCodeRunsHereOnX86() {
        assertNull(WakeStamp.unsupportedReason());
        try (WakeStamp w = WakeStamp.sleeper()) {
            assertTrue(w.isNative(), w.path());
            assertTrue(w.path().startsWith("machine code: clock_nanosleep"), w.path());
            assertTrue(w.path().contains("glibc's clock_gettime"), w.path());
        }
    }

    /** Each path wakes at (not before) its deadline, and its stamp lies between the deadline and the return to Java. */
    @Test
    void everyPathStampsItsWakeUpOnNanoTimesClock() {
        for (WakeStamp w : new WakeStamp[] {WakeStamp.sleeper(), WakeStamp.sleeper(WakeStamp.Clock.SYSCALL),
            WakeStamp.jnaSleeper("asked for")}) {
            try (w) {
                for (int i = 0; i < 20; i++) {
                    long deadline = System.nanoTime() + 1_000_000;
                    assertEquals(0, w.sleepUntil(deadline), w.path());
                    long back = System.nanoTime();
                    long stamp = w.stampNanos();
                    assertTrue(stamp >= deadline, w.path() + ": stamped " + (deadline - stamp) + " ns before its deadline");
                    assertTrue(stamp <= back, w.path() + ": stamped " + (stamp - back) + " ns after the return to Java");
                }
            }
        }
    }

    @Test
    void theSecondStampFollowsTheFirst() {
        for (WakeStamp w : new WakeStamp[] {WakeStamp.sleeper(), WakeStamp.sleeper(WakeStamp.Clock.SYSCALL),
            WakeStamp.jnaSleeper("asked for")}) {
            try (w) {
                assertEquals(0, w.secondStampNanos(), "no second stamp unless asked");
                w.stampTwice(true);
                long deadline = System.nanoTime() + 500_000;
                assertEquals(0, w.sleepUntil(deadline));
                long first = w.stampNanos(), second = w.secondStampNanos();
                assertTrue(first >= deadline && second >= first && second <= System.nanoTime(),
                        w.path() + ": deadline " + deadline + ", stamps " + first + ", " + second);
            }
        }
    }

    @Test
    void theFallbackSaysWhy() {
        try (WakeStamp w = WakeStamp.jnaSleeper("the code page was refused")) {
            assertFalse(w.isNative());
            assertEquals("JNA: clock_nanosleep, then System.nanoTime() (the code page was refused)", w.path());
        }
    }

    /** A stamped read returns the bytes read and the word, and a bad descriptor is -EBADF, stamped too. */
    @Test
    void aStampedReadReadsTheWord() throws Exception {
        try (BytePipe pipe = BytePipe.open(); WakeStamp w = WakeStamp.reader(pipe.readFd(), 1)) {
            assertTrue(w.isNative(), w.path());
            assertEquals(1, pipe.writeByte());
            long before = System.nanoTime();
            assertEquals(1, w.read());
            assertTrue(w.stampNanos() >= before && w.stampNanos() <= System.nanoTime());
            assertTrue(w.word() >= 0 && w.word() < 256, "one byte read, zero-extended: " + w.word());
            pipe.closeWrite();
            assertEquals(0, w.read(), "end of file");
        }
        try (WakeStamp w = WakeStamp.reader(-1, 4)) {
            assertEquals(-Errno.EBADF, w.read());
        }
    }

    @Test
    void aSleepAndAReadAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (WakeStamp w = WakeStamp.sleeper(); BytePipe pipe = BytePipe.open();
                WakeStamp r = WakeStamp.reader(pipe.readFd(), 1)) {
            long sum = 0;
            // Past deadlines: each call returns at once, so the warm-up and the count are quick.
            for (int i = 0; i < 30_000; i++) {
                w.sleepUntil(i);
                sum += w.stampNanos();
            }
            long id = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(id);
            for (int i = 0; i < 30_000; i++) {
                w.sleepUntil(i);
                sum += w.stampNanos();
            }
            for (int i = 0; i < 1000; i++) {
                pipe.writeByte();
                r.read();
                sum += r.stampNanos() + r.word();
            }
            long bytes = mx.getThreadAllocatedBytes(id) - before;
            assertTrue(bytes < 1024, bytes + " bytes allocated in 30,000 stamped sleeps and 1,000 reads");
            assertTrue(sum != 0);
        }
    }

    /** The bytes in WakeStamp are what the assembly sources in src/main/asm assemble to. */
    @Test
    void codeMatchesItsAssemblySource(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/as")) && Files.isExecutable(Path.of("/usr/bin/objcopy")),
                "binutils (as, objcopy) are not installed: the check of the machine code against its source is skipped");
        assertArrayEquals(assemble(tmp, "wakestamp-x86_64.s", "--64"), WakeStamp.codeFor("amd64"));
        assertArrayEquals(assemble(tmp, "wakestamp-i386.s", "--32"), WakeStamp.codeFor("i386"));
    }

    /**
     * The board's code, run: the i386 sequence sleeping, stamping through a cdecl clock function (as
     * glibc's) and through the raw system call, once and twice, and reading a pipe, in a freestanding
     * 32-bit program under qemu-i386. The __kernel_vsyscall entry is the boot test's to run (a
     * guest kernel). Skipped where gcc cannot build -m32 or qemu-i386 is missing.
     */
    @Test
    void theI386SequenceRunsUnderQemu(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/qemu-i386")) && Files.isExecutable(Path.of("/usr/bin/gcc")),
                "qemu-i386 or gcc missing: the i386 sequence is only checked against its source");
        Path src = Files.writeString(tmp.resolve("w.s"), Files.readString(Path.of("src/main/asm/wakestamp-i386.s"))
                .replace("\nwake:", "\n        .globl wake\nwake:"));
        Path harness = tmp.resolve("h.c");
        try (var in = WakeStampTest.class.getResourceAsStream("wakestamp-i386-harness.c")) {
            Files.write(harness, in.readAllBytes());
        }
        Process as = new ProcessBuilder("as", "--32", "-o", tmp.resolve("w.o").toString(), src.toString()).inheritIO().start();
        assertEquals(0, as.waitFor());
        Process cc = new ProcessBuilder("gcc", "-m32", "-ffreestanding", "-nostdlib", "-static", "-O1", "-fno-pie",
                "-no-pie", "-o", tmp.resolve("h").toString(), harness.toString(), tmp.resolve("w.o").toString())
                .redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        assumeTrue(cc.waitFor() == 0, "gcc cannot build a 32-bit program here: " + ccOut);
        Process p = new ProcessBuilder("qemu-i386", tmp.resolve("h").toString()).inheritIO().start();
        assertEquals(0, p.waitFor(), "the harness's failing step (see wakestamp-i386-harness.c)");
    }

    private static byte[] assemble(Path tmp, String source, String bits) throws IOException, InterruptedException {
        Path src = Path.of("src/main/asm", source).toAbsolutePath();
        Path obj = tmp.resolve(source + ".o"), bin = tmp.resolve(source + ".bin");
        for (String[] command : new String[][] {{"as", bits, "-o", obj.toString(), src.toString()},
            {"objcopy", "-O", "binary", "-j", ".text", obj.toString(), bin.toString()}}) {
            Process p = new ProcessBuilder(command).inheritIO().start();
            assertEquals(0, p.waitFor(), String.join(" ", command));
        }
        return Files.readAllBytes(bin);
    }
}
