package rtbox.core;

import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

import rtbox.api.RtboxException;
import rtbox.api.result.RunReport;

/**
 * Runs probes: one measurement at a time, with the JVM hiccup monitor beside it,
 * system information, spike attribution and a verdict. Registered as a service by
 * rtbox.core; the command line, plans and MQTT all run probes through it.
 */
@ProviderType
public interface Runner {
    /** Names of the probes available now. */
    Set<String> probes();

    /** Checks a request without running it; names every bad value it finds first. */
    void check(RunRequest request) throws RtboxException;

    /**
     * Runs to the end or until {@link #stop()}. Returns a report even for a run that
     * was stopped (marked incomplete).
     *
     * @throws RtboxException when the request is bad or the probe could not measure
     */
    RunReport run(RunRequest request, ProgressListener progress) throws RtboxException;

    /** Names of the workloads available now. */
    Set<String> workloads();

    /**
     * Runs one workload alone for {@code durationNs} (or until {@link #stop()}, or
     * until it ends by itself) and returns its figures. A workload swapped meanwhile
     * is restarted with the same parameters, as in a probe run.
     */
    java.util.Map<String, Double> load(LoadSpec load, long durationNs, ProgressListener progress)
            throws RtboxException;

    /** Asks the current run, if any, to stop soon. */
    void stop();

    /** Receives the progress of a run, from 0.0 to 1.0. */
    @FunctionalInterface
    interface ProgressListener {
        void progress(double fraction);

        /**
         * A measuring thread's live figures, announced once before it measures (by probes
         * that publish them: the timer probe), for a display that reads them while the run
         * goes on ({@code rtbox run}'s refreshed T: lines, -v's samples).
         *
         * @since 1.5
         */
        default void measuring(rtbox.api.LiveThread thread) {
        }

        /**
         * Whether the one who started the run wants it to end early. Read by the probe along
         * with {@link #stop()}: a stop asked for before the run got under way (while the
         * runner collected the garbage, or a plan's policy was applied) is not lost, as it
         * was when only {@link #stop()} carried it, since that reaches a run only once started.
         *
         * @since 2.0
         */
        default boolean stopRequested() {
            return false;
        }
    }
}
