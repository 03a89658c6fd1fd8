package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PipeLoopTest {

    @Test
    void runsHereOnX86() {
        // The dev machine and the board are both x86: no machine-code loop here would be a bug.
        assertNull(PipeLoop.unsupportedReason());
    }

    @Test
    void twoEndsMakeExactlyTheRoundTripsAsked() throws Exception {
        try (BytePipe forth = BytePipe.open(); BytePipe back = BytePipe.open()) {
            AtomicInteger secondResult = new AtomicInteger(99);
            long[] secondCount = new long[1];
            Thread second = new Thread(() -> {
                try (PipeLoop pong = PipeLoop.readThenWrite(forth.readFd(), back.writeFd(), Long.MAX_VALUE)) {
                    secondResult.set(pong.run());
                    secondCount[0] = pong.count();
                } catch (OsException e) {
                    throw new IllegalStateException(e);
                }
            });
            second.start();
            int first;
            long firstCount;
            try (PipeLoop ping = PipeLoop.writeThenRead(forth.writeFd(), back.readFd(), 50_000)) {
                first = ping.run();
                firstCount = ping.count();
            }
            assertEquals(PipeLoop.FINISHED, first);
            assertEquals(50_000, firstCount);
            // The first end closing its write end is the second end's end of file.
            forth.closeWrite();
            second.join(TimeUnit.SECONDS.toMillis(5));
            assertEquals(0, secondResult.get(), "the second end left on end of file");
            assertEquals(50_000, secondCount[0]);
            assertEquals(0, forth.pending(), "every byte written was read");
        }
    }

    @Test
    void stopEndsTheLoopWhereverItIs() throws Exception {
        // Stopped at many points of its loop: before a call, between its write and
        // its read (where the descriptors stop() replaces give EBADF), in a read.
        for (int i = 0; i < 40; i++) {
            try (BytePipe forth = BytePipe.open(); BytePipe back = BytePipe.open()) {
                PipeLoop pong = PipeLoop.readThenWrite(forth.readFd(), back.writeFd(), Long.MAX_VALUE);
                Thread second = new Thread(() -> {
                    pong.run();
                    pong.close();
                });
                second.start();
                PipeLoop ping = PipeLoop.writeThenRead(forth.writeFd(), back.readFd(), Long.MAX_VALUE);
                int[] result = new int[1];
                Thread first = new Thread(() -> result[0] = ping.run());
                first.start();
                Thread.sleep(1 + i % 7); // fixed on purpose: stops at varied points of the loop
                ping.stop();
                first.join(1000);
                assertTrue(!first.isAlive(), "the first end left after stop()");
                assertEquals(PipeLoop.FINISHED, result[0], "stop " + i + " is not an error");
                ping.close();
                forth.closeWrite();
                second.join(1000);
                assertTrue(!second.isAlive(), "the second end left on end of file");
            }
        }
    }

    @Test
    void aClosedPeerIsEndOfFileAndAWriteToAClosedPipeIsEpipe() throws Exception {
        try (BytePipe forth = BytePipe.open(); BytePipe back = BytePipe.open()) {
            back.closeWrite();
            try (PipeLoop ping = PipeLoop.writeThenRead(forth.writeFd(), back.readFd(), 10)) {
                assertEquals(0, ping.run(), "read of a pipe whose writer is closed: end of file");
                assertEquals(0, ping.count());
            }
            forth.closeRead();
            try (PipeLoop ping = PipeLoop.writeThenRead(forth.writeFd(), back.readFd(), 10)) {
                // The JVM ignores SIGPIPE, so the write fails with EPIPE (32).
                assertEquals(-32, ping.run());
            }
        }
    }

    /** The work between the calls is real CPU time: ten times the spins take several times as long. */
    @Test
    void workSpinsBetweenTheCalls() throws Exception {
        long small = oneTrip(200_000), large = oneTrip(2_000_000);
        assertTrue(large > 3 * small, "2M spins took " + large + " ns, 200k spins " + small + " ns");
    }

    private static long oneTrip(long work) throws Exception {
        long best = Long.MAX_VALUE;
        try (BytePipe in = BytePipe.open(); BytePipe out = BytePipe.open()) {
            for (int i = 0; i < 5; i++) {
                try (PipeLoop client = PipeLoop.readThenWrite(in.readFd(), out.writeFd(), 1)) {
                    client.work(work);
                    assertEquals(1, in.writeByte());
                    long t0 = System.nanoTime();
                    assertEquals(PipeLoop.FINISHED, client.run());
                    best = Math.min(best, System.nanoTime() - t0);
                    assertEquals(1, out.readByte());
                }
            }
        }
        return best;
    }

    /**
     * A loop spawned in a child process echoes as a thread's would, its count is seen here
     * through the shared control block, and kill() ends and reaps it (no zombie in /proc).
     */
    @Test
    void aSpawnedChildEchoesAndIsKilledAndReaped() throws Exception {
        try (BytePipe forth = BytePipe.open(); BytePipe back = BytePipe.open();
                PipeLoop pong = PipeLoop.readThenWrite(forth.readFd(), back.writeFd(), Long.MAX_VALUE)) {
            ForkedChild child = pong.spawn();
            assertTrue(child.pid() > 0 && child.pid() != ProcessHandle.current().pid());
            assertTrue(Files.exists(Path.of("/proc/" + child.pid())));
            for (int i = 0; i < 1000; i++) {
                assertEquals(1, forth.writeByte());
                assertEquals(1, back.readByte());
            }
            // The child counts a round trip after its write: the last count may come a moment later.
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (pong.count() < 1000 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1000, pong.count());
            String status = Files.readString(Path.of("/proc/" + child.pid() + "/status"));
            assertTrue(status.contains("PPid:\t" + ProcessHandle.current().pid()), status);
            child.kill();
            assertTrue(Files.notExists(Path.of("/proc/" + child.pid())), "the child was not reaped");
            child.kill();
        }
    }

    @Test
    void aBadDescriptorIsEbadfNotACrash() throws Exception {
        try (PipeLoop ping = PipeLoop.writeThenRead(-1, -1, 10)) {
            assertEquals(-Errno.EBADF, ping.run());
        }
    }

    /** The bytes in PipeLoop are what the assembly sources in src/main/asm assemble to. */
    @Test
    void codeMatchesItsAssemblySource(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/as")) && Files.isExecutable(Path.of("/usr/bin/objcopy")),
                "binutils (as, objcopy) are not installed: the check of the machine code against its source is skipped");
        assertArrayEquals(assemble(tmp, "pipeloop-x86_64.s", "--64"), PipeLoop.codeFor("amd64"));
        assertArrayEquals(assemble(tmp, "pipeloop-i386.s", "--32"), PipeLoop.codeFor("i386"));
    }

    /**
     * The board's code, run: the i386 loop with work and a spawned child, in a freestanding
     * 32-bit program (no libc) under qemu-i386 (user mode: fork, prctl, kill and waitpid are
     * the host's). Skipped where gcc cannot build -m32 or qemu-i386 is missing.
     */
    @Test
    void theI386LoopWorksAndSpawnsUnderQemu(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/qemu-i386")) && Files.isExecutable(Path.of("/usr/bin/gcc")),
                "qemu-i386 or gcc missing: the i386 loop is only checked against its source");
        Path src = Files.writeString(tmp.resolve("pl.s"), Files.readString(Path.of("src/main/asm/pipeloop-i386.s"))
                .replace("\nloop:", "\n        .globl loop\nloop:"));
        Path harness = tmp.resolve("h.c");
        try (var in = PipeLoopTest.class.getResourceAsStream("pipeloop-i386-harness.c")) {
            Files.write(harness, in.readAllBytes());
        }
        run("as", "--32", "-o", tmp.resolve("pl.o").toString(), src.toString());
        Process cc = new ProcessBuilder("gcc", "-m32", "-ffreestanding", "-nostdlib", "-static", "-O1", "-fno-pie",
                "-no-pie", "-o", tmp.resolve("h").toString(), harness.toString(), tmp.resolve("pl.o").toString())
                .redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        assumeTrue(cc.waitFor() == 0, "gcc cannot build a 32-bit program here: " + ccOut);
        Process p = new ProcessBuilder("qemu-i386", tmp.resolve("h").toString()).inheritIO().start();
        assertEquals(0, p.waitFor(), "the harness's failing step (see pipeloop-i386-harness.c)");
    }

    private static byte[] assemble(Path tmp, String source, String bits) throws IOException, InterruptedException {
        Path src = Path.of("src/main/asm", source).toAbsolutePath();
        Path obj = tmp.resolve(source + ".o"), bin = tmp.resolve(source + ".bin");
        run("as", bits, "-o", obj.toString(), src.toString());
        run("objcopy", "-O", "binary", "-j", ".text", obj.toString(), bin.toString());
        return Files.readAllBytes(bin);
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        assertEquals(0, p.waitFor(), String.join(" ", command));
    }
}
