package rtbox.api.result;

/** One threshold checked against one measured figure. */
public record Check(String metric, double threshold, double actual, Verdict.Outcome outcome, String detail) {
}
