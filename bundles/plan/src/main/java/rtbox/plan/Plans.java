package rtbox.plan;

import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import rtbox.api.RtboxException;
import rtbox.api.result.Verdict;

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
     * The deprecation notes of a plan that checks: each name it uses that is read as its new one
     * until the next release ({@code $.thresholds.max_latency_us: deprecated name ...: write max_us});
     * empty when none. {@code rtbox plan check} prints them.
     *
     * @since 2.3
     */
    default List<String> notes(Path file) throws RtboxException {
        return List.of();
    }

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

    /**
     * Past runs from the journal, oldest first, and what was skipped as damaged. Builds every
     * run of the journal, reports included: use {@link #page} and {@link #run(String)} for a
     * journal of any size.
     */
    History history() throws RtboxException;

    /**
     * A page of the journal's runs in brief, read as a stream: the {@code limit} newest runs
     * older than the run {@code before} (null: the newest runs), oldest first. {@link Page#older}
     * is the id to pass as {@code before} for the page before this one.
     *
     * @since 2.2
     */
    default Page page(String before, int limit) throws RtboxException {
        History h = history();
        List<Summary> all = h.runs().stream().map(Summary::of).toList();
        return Page.of(all, before, limit, h.damaged(), h.journal());
    }

    /**
     * One run of the journal in full, by its id, read as a stream that builds that run only;
     * null when the journal has no run of that id.
     *
     * @since 2.2
     */
    default PlanRun run(String id) throws RtboxException {
        PlanRun found = null;
        for (PlanRun r : history().runs()) {
            if (r.id().equals(id)) {
                found = r;
            }
        }
        return found;
    }

    /**
     * Marks a run as still needed (its result not yet safely on its way): the journal, which is
     * bounded in size and drops its oldest runs when it grows past the bound, keeps a held run
     * until it is released with {@code held} false. The newest run is always kept.
     *
     * @since 2.2
     */
    default void hold(String runId, boolean held) {
    }

    /**
     * A run in brief, as {@link #page} lists it: what a list of runs shows, without the cells.
     *
     * @since 2.2
     */
    record Summary(String id, String plan, String state, Verdict verdict, long startedEpochMs, long endedEpochMs,
            int cellsPlanned, int cellsRun) {
        public static Summary of(PlanRun r) {
            return new Summary(r.id(), r.plan(), r.state(), r.verdict(), r.startedEpochMs(), r.endedEpochMs(),
                    r.cellsPlanned(), r.cells().size());
        }
    }

    /**
     * A page of runs in brief, oldest first; {@code total} runs in the journal; {@code older} the
     * id to ask the page before this one with (null: this page starts at the oldest run); at most
     * {@link #MAX_DAMAGED} notes of damage (the last says how many more).
     *
     * @since 2.2
     */
    record Page(List<Summary> runs, int total, String older, List<String> damaged, String journal) {
        public static final int MAX_DAMAGED = 20;

        /** The page of {@code all} (oldest first) that {@link Plans#page} describes. */
        public static Page of(List<Summary> all, String before, int limit, List<String> damaged, String journal) {
            int end = all.size();
            if (before != null) {
                end = 0;
                for (int i = 0; i < all.size(); i++) {
                    if (all.get(i).id().equals(before)) {
                        end = i;
                    }
                }
            }
            int start = Math.max(0, end - Math.max(0, limit));
            List<String> d = damaged.size() <= MAX_DAMAGED ? List.copyOf(damaged)
                    : java.util.stream.Stream.concat(damaged.stream().limit(MAX_DAMAGED - 1),
                            java.util.stream.Stream.of("and " + (damaged.size() - MAX_DAMAGED + 1) + " more"))
                            .toList();
            // No page before an empty one at the end (limit 0: a count of the runs only).
            String older = start > 0 && start < all.size() ? all.get(start).id() : null;
            return new Page(List.copyOf(all.subList(start, end)), all.size(), older, d, journal);
        }
    }

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

        /**
         * A measuring thread of cell {@code index}, announced once before it measures (by probes
         * that publish their figures: rtbox.core's {@code Runner.ProgressListener.measuring}), for
         * a display that reads them while the cell runs; called on the cell's run thread, not in
         * the measuring loop.
         *
         * @since 2.4
         */
        default void measuring(int index, rtbox.api.LiveThread thread) {
        }

        /** After the cell's result is in the journal. */
        default void cellFinished(CellResult cell, int count) {
        }
    }
}
