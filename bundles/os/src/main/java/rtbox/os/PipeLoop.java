package rtbox.os;

import java.util.Locale;

import com.sun.jna.Function;
import com.sun.jna.Pointer;

import rtbox.os.internal.LibC;

/**
 * One end of a pipe round trip, run as a loop of system calls in a few bytes of
 * machine code: per iteration it writes one byte and reads one (the first end), or
 * reads one and writes it back (the second end).
 *
 * <p>Why: through JNA, each read or write costs a JVM native transition and JNA's
 * argument handling besides the system call. With one byte per call that overhead
 * is a quarter of a round trip: two Java threads reached 0.75x of {@code perf bench
 * sched pipe -T} here, the same loop in machine code called once through JNA 1.0x.
 * A switcher that is a quarter slower than C makes a quarter fewer context switches,
 * which is the load it exists to make. The loop stays in one native call until it
 * ends, so it allocates, locks and logs nothing, and it does not hold up the JVM's
 * safepoints (a thread in native code does not have to stop).
 *
 * <p>The code is in {@code src/main/asm/pipeloop-*.s} of this bundle, with its
 * control block. It reads the stop flag and its limit from the block before every
 * iteration; {@link #stop()} sets the flag and also replaces both descriptors by -1,
 * so a loop that is between its two calls gets EBADF rather than a descriptor number
 * that the pipe's closing may hand to another file.
 *
 * <p>Since 1.7 an iteration can also spin a given number of times between its two calls
 * ({@link #work}: a graph client's work, rtbox.probe.graph), and the loop can run in a
 * forked child process ({@link #spawn}), whose control block is a page shared with it.
 *
 * <p>x86 and x86_64 only; where the code cannot run (another architecture, an
 * executable mapping refused) {@link #open} throws and the caller uses its JNA loop.
 * One thread runs it and closes it after {@link #run()} has returned; {@link #stop()}
 * and {@link #count()} may be called from any thread, also after the close.
 */
public final class PipeLoop implements AutoCloseable {
    // as --64 pipeloop-x86_64.s; objcopy -O binary -j .text
    static final String CODE_X86_64 = "49 89 f8 49 8b 40 30 48 85 c0 75 4c 49 8b 40 38 49 3b 40 28 73 42 49 8b 00 49 8b 78 08 49 8b 70 20 ba 01 00"
            + " 00 00 0f 05 48 83 f8 01 75 2f 49 8b 48 40 e3 05 48 ff c9 75 fb 49 8b 40 10 49 8b 78 18 49 8b 70 20 ba 01 00"
            + " 00 00 0f 05 48 83 f8 01 75 0b 49 ff 40 38 eb ab b8 01 00 00 00 c3 53 48 89 fb b8 39 00 00 00 0f 05 48 85 c0"
            + " 75 2f b8 9d 00 00 00 bf 01 00 00 00 be 09 00 00 00 0f 05 b8 6e 00 00 00 0f 05 48 3b 43 48 75 08 48 89 df e8"
            + " 6c ff ff ff 31 ff b8 e7 00 00 00 0f 05 5b c3";
    // as --32 pipeloop-i386.s; objcopy -O binary -j .text
    static final String CODE_I386 = "53 56 57 55 8b 6c 24 14 8b 45 30 0b 45 34 75 4a 8b 45 38 8b 55 3c 2b 45 28 1b 55 2c 73 3c 8b 45 00 8b 5d 08"
            + " 8b 4d 20 ba 01 00 00 00 cd 80 83 f8 01 75 2c 8b 4d 40 e3 03 49 75 fd 8b 45 10 8b 5d 18 8b 4d 20 ba 01 00 00"
            + " 00 cd 80 83 f8 01 75 0f 83 45 38 01 83 55 3c 00 eb ae b8 01 00 00 00 99 5d 5f 5e 5b c3 53 55 8b 6c 24 0c b8"
            + " 02 00 00 00 cd 80 85 c0 75 2f b8 ac 00 00 00 bb 01 00 00 00 b9 09 00 00 00 cd 80 b8 40 00 00 00 cd 80 3b 45"
            + " 48 75 09 55 e8 67 ff ff ff 83 c4 04 31 db b8 fc 00 00 00 cd 80 99 5d 5b c3";

    /** Where {@code spawn} starts in each code (the label's offset, as nm shows it). */
    static final int SPAWN_X86_64 = 0x5e, SPAWN_I386 = 0x65;

    // The control block: 8-byte slots on both architectures.
    static final int NR1 = 0, FD1 = 8, NR2 = 16, FD2 = 24, BUF = 32, LIMIT = 40, STOP = 48, DONE = 56, WORK = 64,
            PARENT = 72, BYTE = 80;

    /** Left on its stop flag or at its limit. */
    public static final int FINISHED = 1;

    private final Pointer page;
    private final Function function;
    private final Function spawnFunction;
    // A shared page, so that a loop run in a forked child (spawn) still shows its count
    // and takes its work from here.
    private final Pointer control;
    private boolean open = true;
    private boolean spawned;
    private long closedCount;

    private PipeLoop(Pointer page, int spawnOffset, int nr1, int fd1, int nr2, int fd2, long limit) throws OsException {
        this.page = page;
        this.function = Function.getFunction(page);
        this.spawnFunction = Function.getFunction(page.share(spawnOffset));
        try {
            this.control = CodePages.sharedPage("pipe loop's control block");
        } catch (OsException e) {
            CodePages.unmap(page);
            throw e;
        }
        control.setLong(NR1, nr1);
        control.setLong(FD1, fd1);
        control.setLong(NR2, nr2);
        control.setLong(FD2, fd2);
        control.setLong(BUF, Pointer.nativeValue(control) + BYTE);
        control.setLong(LIMIT, limit);
    }

    /** The first end: writes a byte to {@code outFd}, then reads one from {@code inFd}; {@code limit} round trips. */
    public static PipeLoop writeThenRead(int outFd, int inFd, long limit) throws OsException {
        Arch a = arch();
        return new PipeLoop(CodePages.map(a.code, "pipe loop"), a.spawn, a.write, outFd, a.read, inFd, limit);
    }

    /** The second end: reads a byte from {@code inFd} and writes it to {@code outFd}; {@code limit} round trips. */
    public static PipeLoop readThenWrite(int inFd, int outFd, long limit) throws OsException {
        Arch a = arch();
        return new PipeLoop(CodePages.map(a.code, "pipe loop"), a.spawn, a.read, inFd, a.write, outFd, limit);
    }

    /**
     * A one-way writer end (seed 001): writes one byte to {@code outFd}, twice per iteration, so
     * each iteration is two messages and {@link #count()} counts pairs; {@code pairs} iterations.
     * The same loop as the round trip's with both calls a write: no second code to keep.
     *
     * @since 1.9
     */
    public static PipeLoop writesPairs(int outFd, long pairs) throws OsException {
        Arch a = arch();
        return new PipeLoop(CodePages.map(a.code, "pipe loop"), a.spawn, a.write, outFd, a.write, outFd, pairs);
    }

    /**
     * A one-way reader end: reads one byte from {@code inFd}, twice per iteration ({@link
     * #count()} counts pairs); {@code pairs} iterations. At end of file {@link #run()} returns 0,
     * and a byte read in the first half of the last iteration is not counted.
     *
     * @since 1.9
     */
    public static PipeLoop readsPairs(int inFd, long pairs) throws OsException {
        Arch a = arch();
        return new PipeLoop(CodePages.map(a.code, "pipe loop"), a.spawn, a.read, inFd, a.read, inFd, pairs);
    }

    /** Why the loop cannot run on this architecture, or null when it can (a mapping may still be refused). */
    public static String unsupportedReason() {
        return codeFor(System.getProperty("os.arch", "")) == null
                ? "no machine-code pipe loop for architecture " + System.getProperty("os.arch") + " (x86 and x86_64 only)"
                : null;
    }

    /**
     * Runs until the limit, {@link #stop()}, end of file or an error, in the calling
     * thread. Returns {@link #FINISHED} (also when a call failed because of a stop),
     * 0 for end of file, or a negative errno. A signal that interrupts a call (EINTR)
     * does not end the loop.
     */
    public int run() {
        if (!open || spawned) {
            throw new IllegalStateException(open ? "the pipe loop runs in a child" : "the pipe loop was closed");
        }
        Object[] args = {control};
        while (true) {
            int r = (int) function.invokeLong(args);
            if (r < 0 && control.getLong(STOP) != 0) {
                // stop() replaced the descriptors by -1: a loop between its two calls
                // then fails with EBADF, which is the stop, not an error.
                return FINISHED;
            }
            if (r != -Errno.EINTR) {
                return r;
            }
        }
    }

    /**
     * Spins {@code iterations} times between the two calls of every iteration from the
     * next one on: a graph client's calibrated work (0, the default, for none). May be
     * called from any thread while the loop runs, also in a child ({@link #spawn}).
     * @since 1.7
     */
    public synchronized void work(long iterations) {
        if (iterations < 0) {
            throw new IllegalArgumentException("work " + iterations + " is negative");
        }
        if (open) {
            control.setLong(WORK, iterations);
        }
    }

    /**
     * Runs the loop in a child process instead of this thread: fork() in machine code, the
     * child runs only the loop and then exit_group(0), never the JVM's code (which is why a
     * fork of the JVM is safe here). The child gets SIGKILL when the thread that spawned it
     * ends (PR_SET_PDEATHSIG), so a killed JVM leaves no child behind: spawn from a thread
     * that outlives the child. Its count and work stay readable and settable here (the
     * control block is a shared page). It inherits the calling thread's scheduling and
     * affinity, and the JVM's descriptors (a child holds the other pipes' ends too: it ends
     * by {@link ForkedChild#kill()}, not by end of file).
     *
     * @since 1.7
     */
    public synchronized ForkedChild spawn() throws OsException {
        if (!open || spawned) {
            throw new IllegalStateException(open ? "the pipe loop runs in a child already" : "the pipe loop was closed");
        }
        control.setLong(PARENT, LibC.getpid());
        long pid = spawnFunction.invokeLong(new Object[] {control});
        if (pid <= 0) {
            throw new OsException("fork", (int) -pid, "fork() of the pipe loop's child failed: " + Errno.name((int) -pid));
        }
        spawned = true;
        return new ForkedChild((int) pid);
    }

    /** Makes {@link #run()} return before its next iteration; a call in progress (a blocked read) goes on. */
    public synchronized void stop() {
        if (!open) {
            return;
        }
        control.setLong(STOP, 1);
        control.setLong(FD1, -1);
        control.setLong(FD2, -1);
    }

    /**
     * Round trips completed. Exact once {@link #run()} has returned; while it runs,
     * on i386 (two 32-bit halves) a read may be off by a carry.
     */
    public synchronized long count() {
        return open ? control.getLong(DONE) : closedCount;
    }

    /** Unmaps the code and frees the block. Only after {@link #run()} has returned. */
    @Override
    public synchronized void close() {
        if (open) {
            open = false;
            closedCount = control.getLong(DONE);
            CodePages.unmap(page);
            CodePages.unmap(control);
        }
    }

    private record Arch(byte[] code, int spawn, int read, int write) {
    }

    private static Arch arch() throws OsException {
        String name = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        byte[] code = codeFor(name);
        if (code == null) {
            throw new OsException("pipe loop", Errno.ENOSYS, unsupportedReason());
        }
        // System call numbers: x86_64 read 0, write 1; i386 read 3, write 4.
        return code == I386 ? new Arch(code, SPAWN_I386, 3, 4) : new Arch(code, SPAWN_X86_64, 0, 1);
    }

    private static final byte[] X86_64 = hex(CODE_X86_64), I386 = hex(CODE_I386);

    static byte[] codeFor(String arch) {
        return CodePages.forArch(arch, X86_64, I386);
    }

    static byte[] hex(String s) {
        String[] parts = s.trim().split(" +");
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }
}
