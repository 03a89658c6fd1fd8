package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A run started over MQTT: its id, and the sequence number of its messages
 * (progress, then the result), numbered from 1 without gaps. The last number queued
 * is kept in a small file while the run is under way; after a crash the appliance
 * reports the run as aborted with the next number after it and after any of the
 * run's messages still in the outbox.
 */
final class RunSession {
    final String id;
    final String probe;
    private final Path file;
    private long sequence;
    volatile double fraction;
    int lastStep = -1;
    boolean done;

    RunSession(String id, String probe, Path file) {
        this(id, probe, file, 0);
    }

    private RunSession(String id, String probe, Path file, long sequence) {
        this.id = id;
        this.probe = probe;
        this.file = file;
        this.sequence = sequence;
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
            System.err.println(Appliance.LOG + "cannot record run " + id + " in " + file + ": " + e.getMessage());
        }
    }

    /** The same run, continuing after sequence number {@code n}. */
    RunSession after(long n) {
        return new RunSession(id, probe, file, n);
    }

    synchronized void persist() throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, id + "\n" + probe + "\n" + sequence + "\n", StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    synchronized void finished() {
        done = true;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            System.err.println(Appliance.LOG + "cannot remove " + file + ": " + e.getMessage());
        }
    }

    /** The run a restart interrupted, or null. */
    static RunSession load(Path file) {
        try {
            if (!Files.exists(file)) {
                return null;
            }
            String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n");
            return new RunSession(lines[0], lines[1], file, Long.parseLong(lines[2].trim()));
        } catch (IOException | RuntimeException e) {
            System.err.println(Appliance.LOG + "cannot read " + file + " (an interrupted run): " + e);
            return null;
        }
    }
}
