package rtbox.os;

import com.sun.jna.LastErrorException;

import rtbox.os.internal.LibC;

/**
 * A child process that {@link PipeLoop#spawn} forked to run a loop outside the JVM. The
 * JDK's {@code Process} does not know it, so this class ends and reaps it: {@link #kill()}
 * sends SIGKILL and waits for it, so no zombie is left. The child also dies on its own
 * when the thread that spawned it ends (PR_SET_PDEATHSIG), also after a kill -9 of the JVM.
 *
 * @since 1.7
 */
public final class ForkedChild {
    private final int pid;
    private boolean reaped;

    ForkedChild(int pid) {
        this.pid = pid;
    }

    public int pid() {
        return pid;
    }

    /** SIGKILL, then waitpid until it is gone. Idempotent. */
    public synchronized void kill() {
        if (reaped) {
            return;
        }
        try {
            LibC.kill(pid, LibC.SIGKILL);
        } catch (LastErrorException e) {
            // ESRCH: it is gone already (reaped below all the same).
        }
        while (true) {
            try {
                LibC.waitpid(pid, null, 0);
                break;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Errno.EINTR) {
                    break;
                }
            }
        }
        reaped = true;
    }

    @Override
    public String toString() {
        return "child " + pid;
    }
}
