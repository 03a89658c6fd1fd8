package rtbox.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;

import rtbox.os.internal.LibCIo;

/**
 * A kernel pipe (pipe2 with O_CLOEXEC) passing one byte at a time. Each end has its
 * own one-byte buffer, so a writer thread and a reader thread can use it at once
 * without allocating. {@link #readFd()} / {@link #writeFd()} name the descriptors,
 * for example to hand one end to a child process through /proc/self/fd.
 */
public final class BytePipe implements AutoCloseable {
    private static final int FIONREAD = 0x541B;
    private static final NativeLong ONE = new NativeLong(1);
    private final Memory readByte = new Memory(1);
    private final Memory writeByte = new Memory(1);
    private int readFd, writeFd;

    private BytePipe(int readFd, int writeFd) {
        this.readFd = readFd;
        this.writeFd = writeFd;
        writeByte.setByte(0, (byte) 0);
    }

    public static BytePipe open() throws OsException {
        int[] fds = new int[2];
        Native.call("pipe2(O_CLOEXEC)", () -> LibCIo.pipe2(fds, LibCIo.O_CLOEXEC));
        return new BytePipe(fds[0], fds[1]);
    }

    public int readFd() {
        return readFd;
    }

    public int writeFd() {
        return writeFd;
    }

    /** Writes one byte; returns 1, or a negative errno. */
    public int writeByte() {
        try {
            return LibCIo.write(writeFd, writeByte, ONE);
        } catch (LastErrorException e) {
            return -e.getErrorCode();
        }
    }

    /** Reads one byte; returns 1, 0 at end of file (writer closed), or a negative errno. */
    public int readByte() {
        try {
            return LibCIo.read(readFd, readByte, ONE);
        } catch (LastErrorException e) {
            return -e.getErrorCode();
        }
    }

    /** Bytes written and not yet read (ioctl FIONREAD on the read end), or -1 when closed. */
    public synchronized int pending() {
        if (readFd < 0) {
            return -1;
        }
        try (Memory n = new Memory(4)) {
            n.setInt(0, 0);
            LibCIo.ioctl(readFd, new NativeLong(FIONREAD), n);
            return n.getInt(0);
        } catch (LastErrorException e) {
            return -1;
        }
    }

    /** Closes the write end only: a blocked reader then sees end of file. */
    public synchronized void closeWrite() {
        if (writeFd >= 0) {
            quietClose(writeFd);
            writeFd = -1;
        }
    }

    /** Closes the read end only: a blocked writer then gets EPIPE (the JVM ignores SIGPIPE). */
    public synchronized void closeRead() {
        if (readFd >= 0) {
            quietClose(readFd);
            readFd = -1;
        }
    }

    @Override
    public void close() {
        closeWrite();
        closeRead();
    }

    private static void quietClose(int fd) {
        try {
            LibCIo.close(fd);
        } catch (LastErrorException e) {
            // already closed
        }
    }

    /** Describes a negative value returned by a read or write. */
    public static OsException failure(String what, int negativeErrno) {
        return Native.failure(what, -negativeErrno);
    }
}
