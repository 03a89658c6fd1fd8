package rtbox.os;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

import rtbox.os.internal.LibC;

/**
 * A blocking system call and the CLOCK_MONOTONIC time stamp of its return, taken in one
 * machine-code sequence: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) for a timer's
 * wake-up ({@link #sleeper()}), read(2) of a device's interrupt word for an RTC's
 * ({@link #reader}).
 *
 * <p>Why: a latency probe's figure is the stamp minus the deadline, so whatever runs
 * between the kernel's return and the stamp is added to every sample. Through JNA that
 * is the return from the C call, JNA's result handling and the JVM's transition back
 * from native code (with its safepoint check) before {@link System#nanoTime()}: a few
 * hundred nanoseconds here, microseconds on a Pentium III. cyclictest has only glibc's
 * wrapper and its clock_gettime there. The sequence here (src/main/asm/wakestamp-*.s,
 * ~120 bytes, whose bytes a test checks against the sources) makes the system call
 * itself and then calls glibc's clock_gettime, which reads the vDSO as cyclictest's
 * does, into preallocated memory: between the wake-up and the stamp there are six
 * instructions. The JNA call that enters it happens before the sleep, through JNA's own
 * dispatcher with a preallocated argument array (as {@link Tsc} calls its stub), and the
 * stamp is read after it from a direct buffer: no allocation, no marshalling.
 *
 * <p>The clock read can be the clock_gettime system call instead ({@link Clock#SYSCALL}:
 * about 1 us on a VM where the vDSO reads the TSC in 20-40 ns), and the sequence can take
 * a second stamp right after the first ({@link #stampTwice}): the difference is the cost
 * of the stamp itself, the only part of the path that is the probe's.
 *
 * <p>Where the code cannot run (not x86, an executable mapping refused) the same calls go
 * through JNA and {@link System#nanoTime()}, and {@link #path()} says which ran and why.
 * One thread uses an instance; {@link #close()} after its last call.
 */
public final class WakeStamp implements AutoCloseable {
    // as --64 wakestamp-x86_64.s; objcopy -O binary -j .text
    static final String CODE_X86_64 = "53 41 54 48 83 ec 08 48 89 fb 48 8b 03 48 8b 7b 08 48 8b 73 10 48 8b 53 18 4c 8b 53"
            + " 20 0f 05 49 89 c4 bf 01 00 00 00 48 8d 73 40 48 8b 43 28 48 85 c0 74 17 ff d0 48 83 7b 30 00 74 2c bf 01 00"
            + " 00 00 48 8d 73 50 ff 53 28 eb 1e b8 e4 00 00 00 0f 05 48 83 7b 30 00 74 10 bf 01 00 00 00 48 8d 73 50 b8 e4"
            + " 00 00 00 0f 05 4c 89 e0 48 83 c4 08 41 5c 5b c3";
    // as --32 wakestamp-i386.s; objcopy -O binary -j .text
    static final String CODE_I386 = "53 56 57 55 8b 6c 24 14 8b 45 00 8b 5d 08 8b 4d 10 8b 55 18 8b 75 20 8b 7d 38 85 ff"
            + " 74 04 ff d7 eb 02 cd 80 89 c7 83 ec 04 8d 45 40 50 6a 01 8b 45 28 85 c0 74 1b ff d0 83 7d 30 00 74 32 c7 04"
            + " 24 01 00 00 00 8d 45 50 89 44 24 04 ff 55 28 eb 1f b8 09 01 00 00 bb 01 00 00 00 8d 4d 40 cd 80 83 7d 30 00"
            + " 74 0a b8 09 01 00 00 8d 4d 50 cd 80 83 c4 0c 89 f8 99 5d 5f 5e 5b c3";

    // The block: 8-byte slots on both architectures (the sources say what each holds).
    static final int NR = 0, ARG1 = 8, ARG2 = 16, ARG3 = 24, ARG4 = 32, CLOCK = 40, TWICE = 48, ENTRY = 56,
            STAMP = 64, STAMP2 = 80, DEADLINE = 96, WORD = 112, SIZE = 128;

    private static final boolean WIDE = com.sun.jna.Native.LONG_SIZE == 8;
    private static final int CLOCK_NANOSLEEP = WIDE ? 230 : 267, READ = WIDE ? 0 : 3;
    private static final int AT_SYSINFO = 32;
    /** Native.invokeLong(Function, long fp, int callFlags, Object[] args), or null (another JNA). */

    /** How the sequence reads the clock after the call. */
    public enum Clock {
        /** glibc's clock_gettime, as cyclictest calls it (through the vDSO where the clock source allows). */
        LIBC,
        /** The clock_gettime system call itself. */
        SYSCALL
    }

    private final Memory block = new Memory(SIZE);
    private final ByteBuffer view;
    private final Pointer page;
    private final Function function;
    private final long address;
    private final Object[] args;
    private final String path;
    // The JNA path's call and stamps.
    private final boolean sleeps;
    private final int fd;
    private final NativeLong readBytes;
    private final Pointer wordPointer;
    private final Timespec deadline;
    private long jnaStamp, jnaStamp2;
    private boolean twice;
    private boolean open = true;

    private WakeStamp(boolean sleeps, int fd, int bytes, Clock clock, String noCodeReason) {
        this.sleeps = sleeps;
        this.fd = fd;
        this.readBytes = new NativeLong(bytes);
        this.wordPointer = block.share(WORD);
        this.deadline = sleeps ? new Timespec() : null;
        block.clear();
        view = block.getByteBuffer(0, SIZE).order(ByteOrder.nativeOrder());
        String call = sleeps ? "clock_nanosleep" : "read";
        Pointer mapped = null;
        String reason = noCodeReason != null ? noCodeReason : unsupportedReason();
        if (reason == null) {
            try {
                mapped = CodePages.map(WIDE ? X86_64 : I386, "wake-up stamp");
            } catch (OsException e) {
                reason = "the machine code could not be mapped executable: " + e.getMessage();
            }
        }
        page = mapped;
        if (page == null) {
            function = null;
            address = 0;
            args = null;
            path = "JNA: " + call + ", then System.nanoTime() (" + reason + ")";
            return;
        }
        function = Function.getFunction(page);
        address = Pointer.nativeValue(page);
        args = new Object[] {block};
        if (sleeps) {
            setSlot(NR, CLOCK_NANOSLEEP);
            setSlot(ARG1, LibC.CLOCK_MONOTONIC);
            setSlot(ARG2, LibC.TIMER_ABSTIME);
            setSlot(ARG3, Pointer.nativeValue(block) + DEADLINE);
            setSlot(ARG4, 0);
        } else {
            setSlot(NR, READ);
            setSlot(ARG1, fd);
            setSlot(ARG2, Pointer.nativeValue(block) + WORD);
            setSlot(ARG3, bytes);
        }
        String stampBy = "the clock_gettime system call";
        if (clock == Clock.LIBC) {
            long libc = libcClockGettime();
            if (libc != 0) {
                setSlot(CLOCK, libc);
                stampBy = "glibc's clock_gettime (vDSO)";
            } else {
                stampBy += " (glibc's clock_gettime not found)";
            }
        }
        String entry = "";
        if (!WIDE) {
            long vsyscall = LibC.getauxval(new NativeLong(AT_SYSINFO)).longValue();
            setSlot(ENTRY, vsyscall);
            entry = vsyscall != 0 ? " through __kernel_vsyscall" : " through int 0x80";
        }
        path = "machine code: " + call + entry + ", then " + stampBy + " in the same sequence"
                + (CodePages.INVOKE_LONG == null ? " (entered through Function.invokeLong: this JNA allocates per call)" : "");
    }

    /** clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), stamped: glibc's clock_gettime, or JNA where the code cannot run. */
    public static WakeStamp sleeper() {
        return new WakeStamp(true, -1, 0, Clock.LIBC, null);
    }

    /** As {@link #sleeper()}, with the clock read given. */
    public static WakeStamp sleeper(Clock clock) {
        return new WakeStamp(true, -1, 0, clock, null);
    }

    /** clock_nanosleep and System.nanoTime() through JNA, as before this class: the fallback, and the bench's peer. */
    public static WakeStamp jnaSleeper(String why) {
        return new WakeStamp(true, -1, 0, Clock.LIBC, why);
    }

    /** read({@code fd}) of one word of {@code bytes} (at most 8) bytes, stamped (an RTC's interrupt word). */
    public static WakeStamp reader(int fd, int bytes) {
        if (bytes < 1 || bytes > 8) {
            throw new IllegalArgumentException("a stamped read takes 1 to 8 bytes, not " + bytes);
        }
        return new WakeStamp(false, fd, bytes, Clock.LIBC, null);
    }

    /** Why the machine code cannot run on this architecture, or null when it can (a mapping may still be refused). */
    public static String unsupportedReason() {
        return codeFor(System.getProperty("os.arch", "")) == null
                ? "no machine-code wake-up for architecture " + System.getProperty("os.arch") + " (x86 and x86_64 only)"
                : null;
    }

    /** Takes a second stamp right after the first from the next call on (its difference: the stamp's own cost). */
    public void stampTwice(boolean on) {
        twice = on;
        if (page != null) {
            setSlot(TWICE, on ? 1 : 0);
        }
    }

    /**
     * Sleeps until CLOCK_MONOTONIC ({@link System#nanoTime()}'s clock) reaches {@code deadlineNanos}
     * and stamps the return. Allocates nothing.
     *
     * @return 0, or the errno (EINTR when a signal woke the thread)
     */
    public int sleepUntil(long deadlineNanos) {
        if (page == null) {
            deadline.set(deadlineNanos);
            int r = LibC.clock_nanosleep(LibC.CLOCK_MONOTONIC, LibC.TIMER_ABSTIME, deadline.pointer(), null);
            jnaStamps();
            return r;
        }
        long sec = deadlineNanos / 1_000_000_000L;
        long nsec = deadlineNanos - sec * 1_000_000_000L;
        if (WIDE) {
            view.putLong(DEADLINE, sec);
            view.putLong(DEADLINE + 8, nsec);
        } else {
            view.putInt(DEADLINE, (int) sec);
            view.putInt(DEADLINE + 4, (int) nsec);
        }
        return (int) -call();
    }

    /**
     * Reads the word and stamps the return. Returns the bytes read, or a negative errno.
     * Allocates nothing unless the JNA path's read fails.
     */
    public int read() {
        if (page == null) {
            int n;
            try {
                n = LibC.read(fd, wordPointer, readBytes);
            } catch (LastErrorException e) {
                n = -e.getErrorCode();
            }
            jnaStamps();
            return n;
        }
        return (int) call();
    }

    /** The word the last {@link #read()} read (the low {@code bytes} bytes, zero-extended). */
    public long word() {
        return view.getLong(WORD);
    }

    /** CLOCK_MONOTONIC at the last call's return, in nanoseconds ({@link System#nanoTime()}'s scale). */
    public long stampNanos() {
        return page == null ? jnaStamp : nanos(STAMP);
    }

    /** The second stamp of the last call ({@link #stampTwice}), or 0. */
    public long secondStampNanos() {
        return !twice ? 0 : page == null ? jnaStamp2 : nanos(STAMP2);
    }

    /** Whether the machine code runs (false: the JNA path). */
    public boolean isNative() {
        return page != null;
    }

    /** Which path runs, and why not the machine code when it does not. */
    public String path() {
        return path;
    }

    @Override
    public synchronized void close() {
        if (open) {
            open = false;
            if (page != null) {
                CodePages.unmap(page);
            }
        }
    }

    private long call() {
        if (!open) {
            throw new IllegalStateException("the wake-up stamp was closed");
        }
        return CodePages.enter(function, address, args, "wake-up stamp");
    }

    private void jnaStamps() {
        jnaStamp = System.nanoTime();
        if (twice) {
            jnaStamp2 = System.nanoTime();
        }
    }

    private long nanos(int at) {
        if (WIDE) {
            return view.getLong(at) * 1_000_000_000L + view.getLong(at + 8);
        }
        return (view.getInt(at) & 0xffffffffL) * 1_000_000_000L + view.getInt(at + 4);
    }

    private void setSlot(int at, long value) {
        view.putLong(at, value);
    }

    private static long libcClockGettime() {
        try {
            return Pointer.nativeValue(NativeLibrary.getInstance("c", WakeStamp.class.getClassLoader())
                    .getFunction("clock_gettime"));
        } catch (UnsatisfiedLinkError e) {
            return 0;
        }
    }

    private static final byte[] X86_64 = PipeLoop.hex(CODE_X86_64), I386 = PipeLoop.hex(CODE_I386);

    static byte[] codeFor(String arch) {
        return CodePages.forArch(arch, X86_64, I386);
    }
}
