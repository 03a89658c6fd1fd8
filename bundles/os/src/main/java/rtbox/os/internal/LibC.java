package rtbox.os.internal;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * glibc functions bound by JNA direct mapping: static natives, no proxy and no
 * argument boxing, so a call in a measuring loop allocates nothing.
 * size_t and long are {@link NativeLong} so the same code runs on i386 and x86_64.
 */
public final class LibC {
    static {
        Native.register(LibC.class, NativeLibrary.getInstance("c", LibC.class.getClassLoader()));
    }

    public static final int CLOCK_MONOTONIC = 1;
    public static final int TIMER_ABSTIME = 1;
    public static final int MCL_CURRENT = 1, MCL_FUTURE = 2, MCL_ONFAULT = 4;
    public static final int PR_SET_TIMERSLACK = 29, PR_GET_TIMERSLACK = 30;

    private LibC() {
    }

    public static native int gettid();

    public static native int sched_setscheduler(int pid, int policy, Pointer param) throws LastErrorException;

    public static native int sched_getscheduler(int pid) throws LastErrorException;

    public static native int sched_getparam(int pid, Pointer param) throws LastErrorException;

    public static native int sched_setaffinity(int pid, NativeLong cpusetsize, Pointer mask) throws LastErrorException;

    public static native int sched_getaffinity(int pid, NativeLong cpusetsize, Pointer mask) throws LastErrorException;

    public static native int mlockall(int flags) throws LastErrorException;

    public static native int munlockall() throws LastErrorException;

    public static native int prctl(int option, NativeLong arg2, NativeLong arg3, NativeLong arg4, NativeLong arg5)
            throws LastErrorException;

    /** Returns 0 or an errno value itself (it does not set errno). */
    public static native int clock_nanosleep(int clockId, int flags, Pointer request, Pointer remain);

    public static native int clock_gettime(int clockId, Pointer timespec) throws LastErrorException;

    public static native int clock_getres(int clockId, Pointer timespec) throws LastErrorException;

    public static native String strerror(int errnum);
}
