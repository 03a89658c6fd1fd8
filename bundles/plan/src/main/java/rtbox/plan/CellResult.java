package rtbox.plan;

import java.util.List;
import java.util.Map;

import rtbox.api.result.RunReport;
import rtbox.api.result.Verdict;

/**
 * One cell of a plan as it ran. {@code axes} holds the matrix values that made the
 * cell ("policy" to "iso@70", "load" to "blockio"); {@code policy} is the policy the
 * plan asked for and {@code policyChanges} what the scheduling tuner changed for it
 * ("setting" to "old -> new", and its disclosures under "note.*"). {@code report}
 * is null when the cell could not run at all; {@code error} then says why. The
 * cell's {@code verdict} is the run's, except that a cell whose worst wake-up was a
 * JVM pause is INCONCLUSIVE, and a cell that could not run is ERROR.
 */
public record CellResult(
        int index,
        String name,
        Map<String, String> axes,
        String probe,
        String policy,
        List<String> loads,
        Map<String, String> policyChanges,
        long startedEpochMs,
        long endedEpochMs,
        RunReport report,
        Verdict verdict,
        String error) {

    /** Worst wake-up latency over all measuring threads in microseconds, or -1 without a report. */
    public long worstUs() {
        if (report == null || report.result() == null) {
            return -1;
        }
        return Math.round(report.result().threads().stream().mapToLong(t -> t.latency().maxNs()).max().orElse(0)
                / 1000.0);
    }

    /** Missed deadlines over all measuring threads, or -1 without a report. */
    public long missedDeadlines() {
        if (report == null || report.result() == null) {
            return -1;
        }
        return report.result().threads().stream().mapToLong(t -> t.missedDeadlines()).sum();
    }

    /** Histogram overflows over all measuring threads, or -1 without a report. */
    public long overflows() {
        if (report == null || report.result() == null) {
            return -1;
        }
        return report.result().threads().stream().mapToLong(t -> t.latency().overflows()).sum();
    }
}
