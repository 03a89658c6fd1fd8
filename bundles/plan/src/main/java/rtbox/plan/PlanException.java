package rtbox.plan;

import java.util.List;

import rtbox.api.RtboxException;

/** A plan that cannot run, with every problem found in it, each starting with its path in the file. */
public class PlanException extends RtboxException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    public PlanException(String file, List<String> problems) {
        super("plan", file + ": " + problems.size() + (problems.size() == 1 ? " problem" : " problems") + ":\n  "
                + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem as "$.path: what is wrong". */
    public List<String> problems() {
        return problems;
    }
}
