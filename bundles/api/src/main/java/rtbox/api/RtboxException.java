package rtbox.api;

/**
 * A failure that a user can act on: a bad parameter, a missing device, a refused
 * system call. {@link #subject()} names what was wrong ("priority", "/dev/rtc").
 */
public class RtboxException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String subject;

    public RtboxException(String subject, String message) {
        super(message);
        this.subject = subject;
    }

    public RtboxException(String subject, String message, Throwable cause) {
        super(message, cause);
        this.subject = subject;
    }

    /** What was wrong: a parameter name, a device path, a system call. */
    public String subject() {
        return subject;
    }
}
