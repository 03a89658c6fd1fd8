package rtbox.os;

import rtbox.os.internal.LibC;

/**
 * mlockall(2) for the whole process. Uses MCL_ONFAULT: a JVM maps ~150 MB of JDK
 * files, and MCL_CURRENT|MCL_FUTURE alone faults them all in and pins them (RSS
 * 35 MB to 190-223 MB, measured); with MCL_ONFAULT only pages actually touched are
 * locked (43 MB), which the board's 192 MB can afford.
 */
public final class MemoryLock {
    private MemoryLock() {
    }

    /** Locks current and future pages of the process as they are touched. */
    public static void lockAll() throws OsException {
        Native.call("mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)",
                () -> LibC.mlockall(LibC.MCL_CURRENT | LibC.MCL_FUTURE | LibC.MCL_ONFAULT));
    }

    /** Undoes {@link #lockAll()}. */
    public static void unlockAll() throws OsException {
        Native.call("munlockall()", LibC::munlockall);
    }
}
