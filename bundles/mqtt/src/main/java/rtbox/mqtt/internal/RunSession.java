package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import rtbox.os.DurableFile;

/**
 * A run or a plan started over MQTT: its id, and the sequence number of its messages
 * (progress, then the result), numbered from 1 without gaps. After a crash the appliance
 * reports the run as aborted with the next number after the last one that the run's file
 * ({@code run.active}) or the outbox shows. A plan's numbers are fixed by its cells
 * ({@link PlanMessages}); its file says {@code plan} on a fourth line.
 *
 * <p>A message queued in the outbox carries its own number, so the file needs to record a
 * number only before that message leaves the outbox ({@link #recordAtLeast}, called by the
 * outbox before it removes or sets the message aside): between the two, the outbox has it.
 * This keeps two of the four forced writes off the way from a run's end to its result at a
 * subscriber. Once the run has ended ({@link #finished}) the file is removed, and that removal
 * is forced before the result leaves the outbox, so no restart reports a run aborted after
 * its result went out.
 */
final class RunSession {
    static final String RUN = "run", PLAN = "plan";
    final String id;
    /** The probe of a run, the plan's name for a plan. */
    final String probe;
    final String kind;
    private final Path file;
    private long sequence;
    /** Guards {@link #recorded}, {@link #removed}, {@link #removalForced} and the file. */
    private final Object record = new Object();
    /** The number the file says (durably). */
    private long recorded;
    /** The run ended and its file was removed; and that removal is forced to the disk. */
    private boolean removed, removalForced;
    volatile double fraction;
    /** A plan's cell under way (0-based) and its number of cells. */
    volatile int cell, cells;
    /** The name of a plan's cell under way. */
    volatile String cellName;
    private static final rtbox.api.LiveThread[] NO_THREADS = {};
    /**
     * The measuring threads of the run, or of the plan's cell, under way, read for live figures
     * ({@link LiveFeed}): replaced whole, never changed in place, so a reader needs no lock.
     */
    private volatile rtbox.api.LiveThread[] live = NO_THREADS;
    int lastStep = -1;
    /** A stop was asked for (read by the run through its listener, so that none is lost before it got under way). */
    volatile boolean stopAsked;
    boolean done;

    RunSession(String id, String probe, Path file) {
        this(id, probe, RUN, file, 0, 0);
    }

    RunSession(String id, String probe, String kind, Path file) {
        this(id, probe, kind, file, 0, 0);
    }

    private RunSession(String id, String probe, String kind, Path file, long sequence, long recorded) {
        this.id = id;
        this.probe = probe;
        this.kind = kind;
        this.file = file;
        this.sequence = sequence;
        this.recorded = recorded;
    }

    boolean plan() {
        return PLAN.equals(kind);
    }

    /** A measuring thread announced itself (on the run thread, before it measures). */
    synchronized void measuring(rtbox.api.LiveThread t) {
        rtbox.api.LiveThread[] more = java.util.Arrays.copyOf(live, live.length + 1);
        more[live.length] = t;
        live = more;
    }

    /** A plan's next cell starts: the last one's threads are done. */
    void cellStarted(int index, String name) {
        live = NO_THREADS;
        cellName = name;
        fraction = 0;
        cell = index;
    }

    rtbox.api.LiveThread[] live() {
        return live;
    }

    /** The last sequence number queued. */
    synchronized long sequence() {
        return sequence;
    }

    /**
     * Message {@code n} is queued (called inside the outbox's lock): taken in memory; the file
     * records it before the message leaves the outbox ({@link #recordAtLeast}).
     */
    synchronized void queued(long n) {
        sequence = n;
    }

    /**
     * Makes the file say at least {@code n}, durably, or, once the run has ended, makes its
     * removal durable: called before message {@code n} leaves the outbox. Its own lock, not
     * this object's, since the outbox calls it holding its lock while a run thread may hold
     * this one and wait for the outbox's.
     */
    void recordAtLeast(long n) {
        synchronized (record) {
            if (removed) {
                if (!removalForced) {
                    DurableFile.syncFolder(file.toAbsolutePath().getParent());
                    removalForced = true;
                }
                return;
            }
            if (n <= recorded) {
                return;
            }
            try {
                write(n);
            } catch (IOException e) {
                Appliance.LOG.warn("cannot record run {} in {}: {}", id, file, e.getMessage());
            }
        }
    }

    /** The same run, continuing after sequence number {@code n} (its file still says what it said). */
    RunSession after(long n) {
        return new RunSession(id, probe, kind, file, n, recorded);
    }

    /** Writes the file with the last number queued, durably. */
    void persist() throws IOException {
        long n = sequence();
        synchronized (record) {
            write(Math.max(n, recorded));
        }
    }

    private void write(long n) throws IOException {
        DurableFile.write(file, (id + "\n" + probe + "\n" + n + "\n" + kind + "\n").getBytes(StandardCharsets.UTF_8));
        recorded = n;
    }

    /**
     * The run has ended, its last message is queued: the file is removed (forced before that
     * message leaves the outbox, by {@link #recordAtLeast}).
     */
    void finished() {
        synchronized (this) {
            done = true;
        }
        synchronized (record) {
            removed = true;
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                Appliance.LOG.warn("cannot remove {}: {}", file, e.getMessage());
            }
        }
    }

    /** The run a restart interrupted, or null. */
    static RunSession load(Path file) {
        try {
            if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            if (!Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 64 * 1024) {
                // Never opened: a FIFO hung the start, a link to /dev/zero filled the heap.
                String what = Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "is over 64 KiB"
                        : "is " + Outbox.kind(file);
                Path bad = file.resolveSibling(file.getFileName() + ".bad");
                Files.move(file, bad, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Appliance.LOG.warn("{} {}, not an interrupted run's record: set aside as {}", file, what,
                        bad.getFileName());
                return null;
            }
            String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n");
            long n = Long.parseLong(lines[2].trim());
            return new RunSession(lines[0], lines[1], lines.length > 3 ? lines[3].trim() : RUN, file, n, n);
        } catch (IOException | RuntimeException e) {
            Appliance.LOG.warn("cannot read {} (an interrupted run): {}", file, String.valueOf(e));
            return null;
        }
    }
}
