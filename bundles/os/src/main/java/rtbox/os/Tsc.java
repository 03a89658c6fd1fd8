package rtbox.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import com.sun.jna.Function;
import com.sun.jna.Pointer;


/**
 * The CPU's time stamp counter, read with the rdtsc instruction. JNA cannot bind an
 * instruction, so a few bytes of machine code are written to a private anonymous
 * page mapped read-write, the page is then made read-execute (never writable and
 * executable at once) and called as a function returning a 64-bit integer.
 *
 * <p>The call goes to JNA's own native dispatcher ({@code Native.invokeLong}) through
 * a method handle with a preallocated empty argument array: {@link Function#invokeLong}
 * copies the argument array and boxes the result in a {@code Long} on every call,
 * which a measuring loop must not do. When that internal entry point is not there
 * (another JNA version) {@code Function.invokeLong} is used and {@link #callPath()}
 * says so.
 *
 * <p>Where the stub cannot run (not x86, an executable mapping refused) the counter
 * falls back to CLOCK_MONOTONIC through clock_gettime ({@link System#nanoTime()} on
 * Linux): one tick is then one nanosecond, and {@link #clock()} and
 * {@link #fallbackReason()} say what was used and why.
 *
 * <p>One instance may be read from many threads; {@link #close()} unmaps the stub
 * and must be called only once every reader has finished.
 */
public final class Tsc implements AutoCloseable {
    /** rdtsc; shl rdx,32; or rax,rdx; ret */
    static final byte[] STUB_X86_64 = {0x0F, 0x31, 0x48, (byte) 0xC1, (byte) 0xE2, 0x20, 0x48, 0x09, (byte) 0xD0,
        (byte) 0xC3};
    /** rdtsc; ret (EDX:EAX already is the 64-bit return value of cdecl) */
    static final byte[] STUB_I386 = {0x0F, 0x31, (byte) 0xC3};

    public static final String CLOCK_TSC = "TSC (rdtsc)";
    public static final String CLOCK_MONOTONIC = "CLOCK_MONOTONIC (clock_gettime)";

    private static final Object[] NO_ARGS = new Object[0];
    /** Native.invokeLong(Function, long fp, int callFlags, Object[] args), or null. */

    private final Pointer page;
    private final Function function;
    private final long address;
    private final boolean stub;
    private final boolean direct;
    private final String fallbackReason;
    private final double hz;
    private final double calibrationSpread;
    private boolean open = true;

    private Tsc(Pointer page, String fallbackReason, boolean calibrate) {
        this.page = page;
        this.stub = page != null;
        this.function = stub ? Function.getFunction(page) : null;
        this.address = stub ? Pointer.nativeValue(page) : 0;
        this.direct = stub && CodePages.INVOKE_LONG != null;
        this.fallbackReason = fallbackReason;
        if (stub && calibrate) {
            double[] c = calibrateHz(this, 5, 40_000_000L);
            this.hz = c[0];
            this.calibrationSpread = c[1];
        } else {
            this.hz = stub ? 0 : 1e9;
            this.calibrationSpread = 0;
        }
    }

    /**
     * The TSC when the rdtsc stub runs here, otherwise CLOCK_MONOTONIC with the reason
     * recorded. Calibrates the TSC against CLOCK_MONOTONIC (about 0.2 s).
     */
    public static Tsc open() {
        byte[] code = stubFor(System.getProperty("os.arch", ""));
        if (code == null) {
            return monotonic("no rdtsc stub for architecture " + System.getProperty("os.arch")
                    + " (x86 and x86_64 only)");
        }
        try {
            return new Tsc(mapStub(code), null, true);
        } catch (OsException e) {
            return monotonic("the rdtsc stub could not be mapped executable: " + e.getMessage());
        }
    }

    /** CLOCK_MONOTONIC as the counter (1 tick = 1 ns), with the reason for not using the TSC. */
    public static Tsc monotonic(String reason) {
        return new Tsc(null, reason, false);
    }

    static byte[] stubFor(String arch) {
        return CodePages.forArch(arch, STUB_X86_64, STUB_I386);
    }

    /** Maps the stub into a page of its own, read-execute (see {@link CodePages}). */
    static Pointer mapStub(byte[] code) throws OsException {
        return CodePages.map(code, "rdtsc stub");
    }

    /** The counter now, in ticks ({@link #hz()} per second). Allocates nothing on the direct path. */
    public long read() {
        if (!stub) {
            return System.nanoTime();
        }
        if (!open) {
            throw new IllegalStateException("the rdtsc stub was unmapped (Tsc closed)");
        }
        return CodePages.enter(function, address, NO_ARGS, "rdtsc stub");
    }

    /** Whether the counter is the CPU's TSC (false: CLOCK_MONOTONIC fallback). */
    public boolean isTsc() {
        return stub;
    }

    /** The clock the counter reads: {@link #CLOCK_TSC} or {@link #CLOCK_MONOTONIC}. */
    public String clock() {
        return stub ? CLOCK_TSC : CLOCK_MONOTONIC;
    }

    /** Why the TSC is not used, or null when it is. */
    public String fallbackReason() {
        return fallbackReason;
    }

    /** How a read reaches the stub, for the result's notes. */
    public String callPath() {
        if (!stub) {
            return "System.nanoTime (clock_gettime(CLOCK_MONOTONIC) via the vDSO)";
        }
        return direct ? "JNA Native.invokeLong through a method handle (no allocation per call)"
                : "JNA Function.invokeLong (boxes a Long and copies the argument array per call)";
    }

    /** Ticks per second: calibrated against CLOCK_MONOTONIC for the TSC, 1e9 for the fallback. */
    public double hz() {
        return hz;
    }

    /** Relative spread (max-min)/median of the calibration windows; 0 for the fallback. */
    public double calibrationSpread() {
        return calibrationSpread;
    }

    /** Ticks in {@code nanos} nanoseconds. */
    public long ticksFor(long nanos) {
        return stub ? (long) (nanos * hz / 1e9) : nanos;
    }

    /** Nanoseconds in {@code ticks} ticks. */
    public long toNanos(long ticks) {
        return stub ? (long) (ticks * 1e9 / hz) : ticks;
    }

    /** The address of the stub page, for tests that inspect its protection; 0 for the fallback. */
    public long stubAddress() {
        return address;
    }

    /**
     * Measures TSC ticks per second against CLOCK_MONOTONIC: {@code windows} windows of
     * {@code windowNs} each, every end point bracketed by two clock reads so that a
     * preemption between them is seen and the pair retaken. Returns {median Hz, spread}.
     */
    static double[] calibrateHz(Tsc tsc, int windows, long windowNs) {
        double[] rates = new double[windows];
        for (int i = 0; i < windows; i++) {
            long[] a = bracket(tsc);
            long until = a[0] + windowNs;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            long[] b = bracket(tsc);
            rates[i] = (b[1] - a[1]) * 1e9 / (b[0] - a[0]);
        }
        Arrays.sort(rates);
        double median = rates[windows / 2];
        return new double[] {median, (rates[windows - 1] - rates[0]) / median};
    }

    /** {monotonic ns at the TSC read, TSC}: the tightest of a few nanoTime/rdtsc/nanoTime triples. */
    private static long[] bracket(Tsc tsc) {
        long best = Long.MAX_VALUE;
        long[] r = new long[2];
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            long c = tsc.read();
            long t1 = System.nanoTime();
            if (t1 - t0 < best) {
                best = t1 - t0;
                r[0] = t0 + (t1 - t0) / 2;
                r[1] = c;
            }
        }
        return r;
    }

    /** The TSC-related CPU flags of /proc/cpuinfo (tsc, constant_tsc, nonstop_tsc, ...), space separated. */
    public static String cpuFlags() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
                if (line.startsWith("flags")) {
                    StringBuilder b = new StringBuilder();
                    for (String f : line.substring(line.indexOf(':') + 1).trim().split("\\s+")) {
                        if (f.contains("tsc")) {
                            b.append(b.length() == 0 ? "" : " ").append(f);
                        }
                    }
                    return b.toString();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }

    /**
     * Whether the TSC ticks at a constant rate in every P- and C-state (constant_tsc and
     * nonstop_tsc): without both, busy-wait lengths drift with CPU frequency (a Pentium
     * III under SpeedStep) or stop in deep sleep.
     */
    public static boolean invariant(String flags) {
        String f = " " + flags + " ";
        return f.contains(" constant_tsc ") && f.contains(" nonstop_tsc ");
    }

    /** A warning to show when the TSC is not invariant, or null. */
    public static String invarianceWarning(String flags) {
        if (invariant(flags)) {
            return null;
        }
        return "the TSC is not invariant (flags: " + (flags.isEmpty() ? "none" : flags)
                + "): its rate may change with CPU frequency or stop in deep C-states, so TSC times can be wrong";
    }

    /** Unmaps the stub. Idempotent. Every reader must have finished. */
    @Override
    public synchronized void close() {
        if (stub && open) {
            open = false;
            CodePages.unmap(page);
        }
    }

    @Override
    public String toString() {
        return clock() + (stub ? String.format(Locale.ROOT, " at %.0f Hz", hz) : " (" + fallbackReason + ")");
    }
}
