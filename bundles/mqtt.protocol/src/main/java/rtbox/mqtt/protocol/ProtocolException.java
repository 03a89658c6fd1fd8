package rtbox.mqtt.protocol;

/**
 * A topic or payload that is not rtbox's protocol, naming what was wrong: {@link #field()}
 * is the place ({@code topic}, {@code payload}, or a JSON path such as {@code $.sequence} or
 * {@code $.threads[0].cpu}) and {@link #problem()} what is wrong there and what would be right.
 * For a command, {@link #requestId()} is its request id when that much could be read, so that
 * the appliance can still answer it.
 */
public final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String field;
    private final String problem;
    private final String requestId;

    public ProtocolException(String field, String problem) {
        this(field, problem, null);
    }

    public ProtocolException(String field, String problem, String requestId) {
        super(field + (problem.startsWith("is ") ? " " : ": ") + problem);
        this.field = field;
        this.problem = problem;
        this.requestId = requestId;
    }

    /** Where: {@code topic}, {@code payload} or a JSON path ({@code $.verdict}). */
    public String field() {
        return field;
    }

    /** What is wrong there, without the field. */
    public String problem() {
        return problem;
    }

    /** The command's request id, when the error is in a command whose id could be read; else null. */
    public String requestId() {
        return requestId;
    }

    ProtocolException withRequestId(String id) {
        return new ProtocolException(field, problem, id);
    }
}
