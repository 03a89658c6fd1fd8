package rtbox.os;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Locale;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

import rtbox.os.internal.LibC;

/**
 * Pages of machine code that JNA calls as functions (the rdtsc stub of {@link Tsc},
 * the pipe loop of {@link PipeLoop}, the wake-up stamp of {@link WakeStamp}), how they are entered, which code an architecture runs, and the shared page of a loop's control block. A page is mapped private and anonymous,
 * read-write while the code is copied in, then made read-execute: never writable
 * and executable at once, so a kernel or policy that forbids W+X mappings still
 * allows it, and a refusal (an SELinux execmem denial, a noexec policy) is an
 * OsException that names the stub, on which the caller falls back.
 */
final class CodePages {
    /**
     * JNA's own {@code Native.invokeLong(Function, long, int, Object[])}, which enters a code
     * page without the per-call allocation of {@code Function.invokeLong}; null where this JNA
     * does not have it (then {@link #enter} goes through {@code Function.invokeLong}).
     */
    static final MethodHandle INVOKE_LONG = invokeLongHandle();

    private CodePages() {
    }

    /** Calls the code at {@code function} ({@code address}) with {@code args}; allocates nothing when {@link #INVOKE_LONG} is there. */
    static long enter(Function function, long address, Object[] args, String what) {
        if (INVOKE_LONG != null) {
            try {
                return (long) INVOKE_LONG.invokeExact(function, address, 0, args);
            } catch (Throwable t) {
                throw new IllegalStateException(what + " call failed", t);
            }
        }
        return function.invokeLong(args);
    }

    /** The code for {@code arch} ({@code os.arch}'s names): {@code x86_64}, {@code i386}, or null for any other. */
    static byte[] forArch(String arch, byte[] x86_64, byte[] i386) {
        switch (arch.toLowerCase(Locale.ROOT)) {
            case "amd64": case "x86_64":
                return x86_64;
            case "x86": case "i386": case "i486": case "i586": case "i686":
                return i386;
            default:
                return null;
        }
    }

    private static MethodHandle invokeLongHandle() {
        // findStatic resolves this one method only. Reflection (getDeclaredMethod) would
        // resolve every signature in Native, some of which name java.awt types: on the
        // board's trimmed runtime, without java.desktop, that is a NoClassDefFoundError.
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(com.sun.jna.Native.class, MethodHandles.lookup());
            return lookup.findStatic(com.sun.jna.Native.class, "invokeLong",
                    MethodType.methodType(long.class, Function.class, long.class, int.class, Object[].class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
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
