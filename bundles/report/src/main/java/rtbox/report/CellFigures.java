package rtbox.report;

import java.util.Map;

import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;

/**
 * A run's figures as a cell's verdict is judged on them: the latencies of its worst thread (in
 * microseconds), its missed deadlines summed over the threads, and the probe's xrun count where
 * it has one (the graph probe). The one reading of these figures for the plan report's
 * repetitions and for rtbox.regression's comparison of sets of runs.
 *
 * @param xruns null when the probe does not count xruns
 * @since 1.4
 */
public record CellFigures(double p50Us, double p99Us, double p999Us, double maxUs, long missedDeadlines,
        Double xruns) {

    /** The figures of a run, or null when it has no measuring thread. */
    public static CellFigures of(RunReport r) {
        if (r == null || r.result() == null || r.result().threads().isEmpty()) {
            return null;
        }
        long p50 = 0, p99 = 0, p999 = 0, max = 0, missed = 0;
        for (ThreadResult t : r.result().threads()) {
            p50 = Math.max(p50, t.latency().p50Ns());
            p99 = Math.max(p99, t.latency().p99Ns());
            p999 = Math.max(p999, t.latency().p999Ns());
            max = Math.max(max, t.latency().maxNs());
            missed += t.missedDeadlines();
        }
        Map<String, Double> probe = r.result().figures();
        Double xruns = probe == null ? null : probe.get("xruns");
        return new CellFigures(p50 / 1000.0, p99 / 1000.0, p999 / 1000.0, max / 1000.0, missed, xruns);
    }
}
