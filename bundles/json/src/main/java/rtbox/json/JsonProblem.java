package rtbox.json;

/**
 * What was wrong in a JSON text, and where: {@link #path()} is a JSON path ({@code $},
 * {@code $.thresholds.max_us}, {@code $.cells[2].duration}) and {@link #problem()} what is
 * wrong there and what would be right. The message is the two together, as a person reads it.
 */
public final class JsonProblem extends Exception {
    private static final long serialVersionUID = 1L;
    private final String path;
    private final String problem;

    public JsonProblem(String path, String problem) {
        super(path + (problem.startsWith("is ") ? " " : ": ") + problem);
        this.path = path;
        this.problem = problem;
    }

    /** Where: a JSON path, {@code $} for the text as a whole. */
    public String path() {
        return path;
    }

    /** What is wrong there, without the path. */
    public String problem() {
        return problem;
    }
}
