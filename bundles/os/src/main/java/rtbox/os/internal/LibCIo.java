package rtbox.os.internal;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * glibc file, pipe and resource-usage calls, bound by JNA direct mapping (kept apart
 * from {@link LibC} so each binding class stays small). Byte counts returned by
 * read/write/pread are declared {@code int}: ssize_t is 32 bits on i386, and on
 * x86_64 the low 32 bits are the count for any transfer under 2 GiB, which is all
 * rtbox asks for. pread64 takes a 64-bit offset on both architectures.
 */
public final class LibCIo {
    static {
        Native.register(LibCIo.class, NativeLibrary.getInstance("c", LibCIo.class.getClassLoader()));
    }

    public static final int O_RDONLY = 0;
    /** O_DIRECT on x86 (both i386 and x86_64; other architectures differ). */
    public static final int O_DIRECT = 0x4000;
    public static final int O_CLOEXEC = 0x80000;
    public static final int O_NONBLOCK = 0x800;
    public static final int RUSAGE_SELF = 0, RUSAGE_THREAD = 1;
    public static final int PRIO_PROCESS = 0;

    private LibCIo() {
    }

    public static native int open(String path, int flags) throws LastErrorException;

    /**
     * With {@link #AT_FDCWD}, open(2) of a NUL-terminated path in native memory: nothing to
     * convert, and -1 on failure without an exception (one with its stack trace is some 4 kB),
     * so no allocation either way.
     */
    public static native int openat(int dirfd, Pointer path, int flags);

    public static final int AT_FDCWD = -100;

    /** off64_t on both architectures (JNA reads i386's edx:eax pair for a long return). */
    public static native long lseek64(int fd, long offset, int whence) throws LastErrorException;

    public static native int close(int fd) throws LastErrorException;

    public static native int pread64(int fd, Pointer buf, NativeLong count, long offset) throws LastErrorException;

    public static native int read(int fd, Pointer buf, NativeLong count) throws LastErrorException;

    public static native int write(int fd, Pointer buf, NativeLong count) throws LastErrorException;

    public static native int pipe2(int[] fds, int flags) throws LastErrorException;

    /** Returns 0 or an errno value itself. */
    public static native int posix_memalign(Pointer memptr, NativeLong alignment, NativeLong size);

    public static native void free(Pointer p);

    public static native int getrusage(int who, Pointer usage) throws LastErrorException;

    public static native int setpriority(int which, int who, int prio) throws LastErrorException;

    public static native int ioctl(int fd, NativeLong request, Pointer arg) throws LastErrorException;
}
