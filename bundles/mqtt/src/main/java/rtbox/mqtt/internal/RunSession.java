package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import rtbox.os.DurableFile;

/**
 * A run or a plan started over MQTT: its id, and the sequence number of its messages
 * (progress, then the result), numbered from 1 without gaps. The last number queued
 * is kept in a small file while the run is under way; after a crash the appliance
 * reports the run as aborted with the next number after it and after any of the
 * run's messages still in the outbox. A plan's numbers are fixed by its cells
 * ({@link PlanMessages}); its file says {@code plan} on a fourth line.
 */
final class RunSession {
    static final String RUN = "run", PLAN = "plan";
    final String id;
    /** The probe of a run, the plan's name for a plan. */
    final String probe;
    final String kind;
    private final Path file;
    private long sequence;
    volatile double fraction;
    /** A plan's cell under way (0-based) and its number of cells. */
    volatile int cell, cells;
    int lastStep = -1;
    /** A stop was asked for (read by the run through its listener, so that none is lost before it got under way). */
    volatile boolean stopAsked;
    boolean done;

    RunSession(String id, String probe, Path file) {
        this(id, probe, RUN, file, 0);
    }

    RunSession(String id, String probe, String kind, Path file) {
        this(id, probe, kind, file, 0);
    }

    private RunSession(String id, String probe, String kind, Path file, long sequence) {
        this.id = id;
        this.probe = probe;
        this.kind = kind;
        this.file = file;
        this.sequence = sequence;
    }

    boolean plan() {
        return PLAN.equals(kind);
    }

    /** The last sequence number queued. */
    synchronized long sequence() {
        return sequence;
    }

    /** Records that message {@code n} is queued (called inside the outbox's lock). */
    synchronized void queued(long n) {
        sequence = n;
        try {
            persist();
        } catch (IOException e) {
            Appliance.LOG.warn("cannot record run " + id + " in " + file + ": " + e.getMessage());
        }
    }

    /** The same run, continuing after sequence number {@code n}. */
    RunSession after(long n) {
        return new RunSession(id, probe, kind, file, n);
    }

    synchronized void persist() throws IOException {
        DurableFile.write(file, (id + "\n" + probe + "\n" + sequence + "\n" + kind + "\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    synchronized void finished() {
        done = true;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            Appliance.LOG.warn("cannot remove " + file + ": " + e.getMessage());
        }
    }

    /** The run a restart interrupted, or null. */
    static RunSession load(Path file) {
        try {
            if (!Files.exists(file)) {
                return null;
            }
            String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n");
            return new RunSession(lines[0], lines[1], lines.length > 3 ? lines[3].trim() : RUN, file,
                    Long.parseLong(lines[2].trim()));
        } catch (IOException | RuntimeException e) {
            Appliance.LOG.warn("cannot read " + file + " (an interrupted run): " + e);
            return null;
        }
    }
}
