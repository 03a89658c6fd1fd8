package rtbox.plan;

import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import rtbox.api.RtboxException;

/**
 * Acceptance test plans, as a service: check a plan file, run it (cells one at a
 * time, never two measurements at once), stop it, and read past runs back from the
 * result journal.
 */
@ProviderType
public interface Plans {
    /**
     * Checks a plan whole before anything runs: its JSON, every value, and every cell
     * against the probes, workloads and policies present. Returns the cell names.
     *
     * @throws PlanException with every problem, each with its path in the file
     */
    List<String> check(Path file) throws RtboxException;

    /**
     * As {@link #check(Path)}, for a plan's text that came from elsewhere (a command over
     * MQTT); {@code origin} names it in problems and in the journal.
     *
     * @since 1.3
     */
    List<String> check(String origin, String text) throws RtboxException;

    /**
     * Checks and runs a plan. Every cell's result is appended to the journal and
     * synced before the listener hears of it. A cell that fails or cannot run is
     * recorded as such and the next cell runs. Returns when all cells ran or after
     * {@link #stop()}.
     */
    PlanRun run(Path file, Listener listener) throws RtboxException;

    /**
     * As {@link #run(Path, Listener)}, for a plan's text; {@code origin} names it in the
     * journal (where {@code file} would). The text is read once, and kept in the journal.
     *
     * @throws PlanBusyException when a plan is already running
     * @since 1.3
     */
    PlanRun run(String origin, String text, Listener listener) throws RtboxException;

    /** Asks the running plan, if any, to stop: the current cell ends early, no further cell starts. */
    void stop();

    /**
     * Appends a single run (as {@code rtbox run} makes) to the journal as a run of one
     * cell, synced before it returns, so that it is listed with the plan runs.
     *
     * @since 1.1
     */
    PlanRun record(rtbox.api.result.RunReport report) throws RtboxException;

    /** Past runs from the journal, oldest first, and what was skipped as damaged. */
    History history() throws RtboxException;

    /**
     * What of the journal does not read back as a record of a run (a torn or bit-flipped line,
     * a record of an unknown type, cells without their plan), one note each naming the journal
     * and the line, without building the runs (for a check at start); empty when none.
     *
     * @since 2.1
     */
    default List<String> damaged() throws RtboxException {
        return history().damaged();
    }

    /** What the journal holds. {@code damaged} says what was skipped and where. */
    record History(List<PlanRun> runs, List<String> damaged, String journal) {
    }

    /** Hears how a plan run goes. Called on the thread that runs the plan. */
    interface Listener {
        /**
         * The plan passed its check and its start is in the journal under {@code runId}
         * (the id {@link #history()} and {@link PlanRun#id()} give it); no cell has
         * started yet. Lets a caller name the run before its first cell ends.
         *
         * @since 1.2
         */
        default void planStarted(String runId, List<String> cellNames) {
        }

        default void cellStarted(int index, int count, String name) {
        }

        /** Progress of the current cell, 0.0 to 1.0. */
        default void progress(int index, int count, double fraction) {
        }

        /** After the cell's result is in the journal. */
        default void cellFinished(CellResult cell, int count) {
        }
    }
}
