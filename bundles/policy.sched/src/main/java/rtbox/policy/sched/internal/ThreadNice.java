package rtbox.policy.sched.internal;

import java.io.IOException;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The nice value of one thread (Linux keeps it per thread; a thread started later
 * inherits its creator's). Read from /proc, set with setpriority(PRIO_PROCESS, tid).
 */
final class ThreadNice {
    static {
        Native.register(ThreadNice.class, NativeLibrary.getInstance("c", ThreadNice.class.getClassLoader()));
    }

    private static final int PRIO_PROCESS = 0;

    private ThreadNice() {
    }

    private static native int setpriority(int which, int who, int prio) throws LastErrorException;

    static int get(int tid) throws IOException {
        return rtbox.os.Procfs.nice(tid);
    }

    static void set(int tid, int nice) throws IOException {
        try {
            setpriority(PRIO_PROCESS, tid, nice);
        } catch (LastErrorException e) {
            throw new IOException("setpriority(PRIO_PROCESS, tid " + tid + ", " + nice + ") failed: errno "
                    + e.getErrorCode(), e);
        }
    }
}
