package rtbox.os;

import com.sun.jna.LastErrorException;

import rtbox.os.internal.LibC;

/** Turns JNA's LastErrorException into an OsException that names the call. */
final class Native {
    interface Call {
        int invoke() throws LastErrorException;
    }

    private Native() {
    }

    static int call(String what, Call call) throws OsException {
        try {
            return call.invoke();
        } catch (LastErrorException e) {
            throw failure(what, e.getErrorCode());
        }
    }

    static OsException failure(String what, int errno) {
        return new OsException(what, errno,
                what + " failed: " + Errno.name(errno) + " (" + LibC.strerror(errno) + ")");
    }
}
