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
    public static final int PROT_NONE = 0, PROT_READ = 1, PROT_WRITE = 2, PROT_EXEC = 4;
    public static final int MAP_SHARED = 0x01, MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20;
    public static final int SIGKILL = 9;
    public static final int O_RDONLY = 0, O_CLOEXEC = 0x80000;

    private LibC() {
    }

    public static final int MS_RDONLY = 1, MS_NOSUID = 2, MS_NODEV = 4, MS_NOEXEC = 8, MS_SYNCHRONOUS = 16,
            MS_REMOUNT = 32, MS_NOATIME = 1024, MS_NODIRATIME = 2048, MS_RELATIME = 1 << 21;

    public static native int mount(String source, String target, String fstype, NativeLong flags, Pointer data)
            throws LastErrorException;

    public static native int gettid();

    public static native int getpid();

    public static native int kill(int pid, int signal) throws LastErrorException;

    public static native int waitpid(int pid, Pointer status, int options) throws LastErrorException;

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

    /** Returns MAP_FAILED ((void *) -1) on failure. */
    public static native Pointer mmap(Pointer addr, NativeLong length, int prot, int flags, int fd, NativeLong offset)
            throws LastErrorException;

    public static native int mprotect(Pointer addr, NativeLong length, int prot) throws LastErrorException;

    public static native int munmap(Pointer addr, NativeLong length) throws LastErrorException;

    public static native int getpagesize();

    /** getauxval(3): 0 when the entry is not there (AT_SYSINFO, 32: i386's __kernel_vsyscall). */
    public static native NativeLong getauxval(NativeLong type);

    public static native int open(String path, int flags) throws LastErrorException;

    public static native int close(int fd) throws LastErrorException;

    /** ioctl with an integer argument (RTC_IRQP_SET takes the rate by value). */
    public static native int ioctl(int fd, NativeLong request, NativeLong arg) throws LastErrorException;

    /**
     * read(2) into preallocated memory. Returns int, not ssize_t: the counts read here are
     * a few bytes, and an int return keeps a call in a measuring loop free of allocation
     * (a NativeLong return would be a new object per call).
     */
    public static native int read(int fd, Pointer buffer, NativeLong count) throws LastErrorException;
}
