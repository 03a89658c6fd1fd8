package rtbox.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

import rtbox.os.internal.LibC;

/**
 * Pages of machine code that JNA calls as functions (the rdtsc stub of {@link Tsc},
 * the pipe loop of {@link PipeLoop}), and the shared page of a loop's control block. A page is mapped private and anonymous,
 * read-write while the code is copied in, then made read-execute: never writable
 * and executable at once, so a kernel or policy that forbids W+X mappings still
 * allows it, and a refusal (an SELinux execmem denial, a noexec policy) is an
 * OsException that names the stub, on which the caller falls back.
 */
final class CodePages {
    private CodePages() {
    }

    static long pageSize() {
        return LibC.getpagesize();
    }

    /** Maps {@code code} (at most one page) read-execute. Unmaps it again on any failure. */
    static Pointer map(byte[] code, String what) throws OsException {
        long size = pageSize();
        if (code.length > size) {
            throw new IllegalArgumentException(what + ": " + code.length + " bytes do not fit in one page");
        }
        NativeLong length = new NativeLong(size);
        Pointer p;
        try {
            p = LibC.mmap(null, length, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1,
                    new NativeLong(0));
        } catch (LastErrorException e) {
            throw Native.failure("mmap(" + size + " bytes for the " + what
                    + ", PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS)", e.getErrorCode());
        }
        if (p == null || Pointer.nativeValue(p) == -1L) {
            throw new OsException("mmap", Errno.ENOMEM, "mmap of the " + what + " page returned MAP_FAILED");
        }
        try {
            p.write(0, code, 0, code.length);
            Native.call("mprotect(" + what + ", PROT_READ|PROT_EXEC)",
                    () -> LibC.mprotect(p, length, LibC.PROT_READ | LibC.PROT_EXEC));
            return p;
        } catch (OsException | RuntimeException e) {
            LibC.munmap(p, length);
            throw e;
        }
    }

    /**
     * A zeroed read-write page shared (MAP_SHARED|MAP_ANONYMOUS) with any child this
     * process forks after mapping it: the control block of a loop that runs in a child
     * ({@link PipeLoop#spawn}), so that the parent still reads its count and sets its work.
     */
    static Pointer sharedPage(String what) throws OsException {
        long size = pageSize();
        Pointer p;
        try {
            p = LibC.mmap(null, new NativeLong(size), LibC.PROT_READ | LibC.PROT_WRITE,
                    LibC.MAP_SHARED | LibC.MAP_ANONYMOUS, -1, new NativeLong(0));
        } catch (LastErrorException e) {
            throw Native.failure("mmap(" + size + " bytes for the " + what + ", MAP_SHARED|MAP_ANONYMOUS)",
                    e.getErrorCode());
        }
        if (p == null || Pointer.nativeValue(p) == -1L) {
            throw new OsException("mmap", Errno.ENOMEM, "mmap of the " + what + " page returned MAP_FAILED");
        }
        return p;
    }

    /** Unmaps a page from {@link #map} or {@link #sharedPage}. */
    static void unmap(Pointer page) {
        LibC.munmap(page, new NativeLong(pageSize()));
    }
}
