package rtbox.trace.internal;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The few glibc calls the trace reader needs, by JNA direct mapping. {@link #read} does
 * not throw: an empty non-blocking pipe (EAGAIN) is the reader's normal case, and an
 * exception per empty poll would be an allocation every few milliseconds.
 */
final class Posix {
    static {
        Native.register(Posix.class, NativeLibrary.getInstance("c", Posix.class.getClassLoader()));
    }

    static final int O_RDONLY = 0, O_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
    static final int EPERM = 1, ENOENT = 2, EBUSY = 16, ENODEV = 19;

    private Posix() {
    }

    static native int open(String path, int flags) throws LastErrorException;

    /** read(2) into a preallocated direct buffer; -1 when there is nothing to read now (or an error). */
    static native int read(int fd, java.nio.ByteBuffer buffer, NativeLong count);

    static native int close(int fd);

    static native int mount(String source, String target, String type, NativeLong flags, Pointer data)
            throws LastErrorException;

    static native int umount2(String target, int flags) throws LastErrorException;

    static native String strerror(int errnum);
}
