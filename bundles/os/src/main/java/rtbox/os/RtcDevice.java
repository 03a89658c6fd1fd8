package rtbox.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;

import rtbox.os.internal.LibC;

/**
 * The RTC character device (/dev/rtc, /dev/rtc0) for periodic interrupts: set the rate
 * (RTC_IRQP_SET), enable them (RTC_PIE_ON), read one interrupt word per wake-up,
 * disable them (RTC_PIE_OFF). A read returns an unsigned long (4 bytes on i386, 8 on
 * x86_64): the low byte holds flags, the bytes above it the number of interrupts
 * since the last read, so a count over 1 means interrupts were missed.
 *
 * <p>{@link #readWord()} uses a preallocated buffer and allocates nothing unless it
 * fails. Since 1.11 the read and the time stamp of its return are one machine-code
 * sequence ({@link WakeStamp}): {@link #wakeNanos()} is the stamp, and {@link #readPath()}
 * says whether that code or JNA ran. {@link #close()} turns periodic interrupts off before closing; the kernel
 * also turns them off when the descriptor is released, so a killed process leaves
 * none running.
 */
public final class RtcDevice implements AutoCloseable {
    /** sizeof(unsigned long) here: the size of the interrupt word and of RTC_IRQP_SET's argument. */
    public static final int WORD_BYTES = com.sun.jna.Native.LONG_SIZE;
    private static final int IOC_NONE = 0, IOC_WRITE = 1;
    /** _IO('p', 0x05) */
    public static final long RTC_PIE_ON = ioc(IOC_NONE, 'p', 0x05, 0);
    /** _IO('p', 0x06) */
    public static final long RTC_PIE_OFF = ioc(IOC_NONE, 'p', 0x06, 0);
    /** _IOW('p', 0x0c, unsigned long): 0x4008700c on x86_64, 0x4004700c on i386. */
    public static final long RTC_IRQP_SET = irqpSet(WORD_BYTES);

    private final String path;
    private final int fd;
    private final WakeStamp read;
    private boolean periodicOn;
    private boolean open = true;

    private RtcDevice(String path, int fd) {
        this.path = path;
        this.fd = fd;
        this.read = WakeStamp.reader(fd, WORD_BYTES);
    }

    /** Linux's _IOC(dir, type, nr, size) for x86 (and most architectures). */
    static long ioc(int dir, char type, int nr, int size) {
        return ((long) dir << 30) | ((long) size << 16) | ((long) type << 8) | nr;
    }

    /** RTC_IRQP_SET for an unsigned long of {@code longBytes} bytes. */
    public static long irqpSet(int longBytes) {
        return ioc(IOC_WRITE, 'p', 0x0c, longBytes);
    }

    /** Interrupts counted in an interrupt word of {@code bytes} bytes (the bytes above the flags byte). */
    public static long interruptCount(long word, int bytes) {
        long w = bytes == 4 ? word & 0xffffffffL : word;
        return w >>> 8;
    }

    /** The flags byte of an interrupt word (RTC_PF 0x40 for a periodic interrupt, RTC_IRQF 0x80). */
    public static int flags(long word) {
        return (int) (word & 0xff);
    }

    /** Opens the device read-only. */
    public static RtcDevice open(String path) throws OsException {
        int fd;
        try {
            fd = LibC.open(path, LibC.O_RDONLY | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw Native.failure("open(" + path + ")", e.getErrorCode());
        }
        return new RtcDevice(path, fd);
    }

    public String path() {
        return path;
    }

    /** RTC_IRQP_SET: the periodic interrupt rate in Hz. */
    public void setRate(long hz) throws OsException {
        Native.call("ioctl(" + path + ", RTC_IRQP_SET, " + hz + ")",
                () -> LibC.ioctl(fd, new NativeLong(RTC_IRQP_SET), new NativeLong(hz)));
    }

    /** RTC_PIE_ON. */
    public void periodicOn() throws OsException {
        Native.call("ioctl(" + path + ", RTC_PIE_ON)", () -> LibC.ioctl(fd, new NativeLong(RTC_PIE_ON), new NativeLong(0)));
        periodicOn = true;
    }

    /** RTC_PIE_OFF. */
    public void periodicOff() throws OsException {
        periodicOn = false;
        Native.call("ioctl(" + path + ", RTC_PIE_OFF)",
                () -> LibC.ioctl(fd, new NativeLong(RTC_PIE_OFF), new NativeLong(0)));
    }

    /** Blocks for the next interrupt and returns the raw interrupt word ({@link #wakeNanos()}: when the read returned). */
    public long readWord() throws OsException {
        int n = read.read();
        if (n < 0) {
            throw Native.failure("read(" + path + ", " + WORD_BYTES + " bytes)", -n);
        }
        if (n != WORD_BYTES) {
            throw new OsException("read(" + path + ")", Errno.EIO, "read of " + path + " returned " + n
                    + " bytes, not the " + WORD_BYTES + "-byte interrupt word");
        }
        return read.word();
    }

    /**
     * CLOCK_MONOTONIC ({@link System#nanoTime()}'s clock) when the last {@link #readWord()}'s
     * read returned, stamped right after the system call.
     *
     * @since 1.11
     */
    public long wakeNanos() {
        return read.stampNanos();
    }

    /** Which path the reads take: the machine code, or JNA and why. @since 1.11 */
    public String readPath() {
        return read.path();
    }

    /** Turns periodic interrupts off (if on) and closes. Idempotent; reports the first failure. */
    @Override
    public synchronized void close() throws OsException {
        if (!open) {
            return;
        }
        open = false;
        read.close();
        OsException first = null;
        if (periodicOn) {
            try {
                periodicOff();
            } catch (OsException e) {
                first = e;
            }
        }
        try {
            Native.call("close(" + path + ")", () -> LibC.close(fd));
        } catch (OsException e) {
            if (first == null) {
                first = e;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
