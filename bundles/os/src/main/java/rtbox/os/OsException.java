package rtbox.os;

import rtbox.api.RtboxException;

/** A system call that failed: names the call, its arguments and the errno. */
public class OsException extends RtboxException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public OsException(String call, int errno, String message) {
        super(call, message);
        this.errno = errno;
    }

    /** The errno the call failed with. */
    public int errno() {
        return errno;
    }

    /** The errno's symbolic name, e.g. "EPERM". */
    public String errnoName() {
        return Errno.name(errno);
    }
}
