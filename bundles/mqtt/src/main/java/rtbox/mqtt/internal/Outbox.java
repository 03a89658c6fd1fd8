package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import rtbox.os.DurableFile;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * Over 400 lines: every way a queued file can be (whole, damaged, foreign, no file at all,
 * acknowledged and kept, refused by the broker) is decided in one place, under one lock, so
 * that the queue's order and byte count stay exact.
 *
 * <p>Messages waiting to be published, on disk, in order. Each message is one file,
 * named by a counter that only grows, written to a temporary name, forced to disk
 * and renamed, so a power loss leaves either the whole message or none of it. A
 * message is removed only after the broker acknowledged it (QoS 1), so a crash
 * between the acknowledgement and the removal sends it again: receivers drop the
 * repeat by its (run, sequence).
 *
 * <p>File format: the magic {@code RTB2}, the CRC-32 of the rest, the topic's length, the
 * topic (UTF-8) and the payload. A file of the first format (topic length, topic, payload,
 * without magic or checksum) is still read. A file that does not read back whole (empty,
 * torn, a bit flipped, a topic with a wildcard, a name that is not a number) is set aside
 * as {@code NAME.bad} with a log line naming it, and the next message goes: one bad file
 * must not stop all sending, nor MQTT from starting.
 *
 * <p>Acknowledged is not yet saved: a broker acknowledges a message before its persistence has
 * it on disk (mosquitto saves its whole store after the change, autosave_on_changes; a SIGKILL
 * during that save lost a result that had been acknowledged, in 1 of 10 kills). So a message
 * the broker acknowledged is kept for {@link #KEEP_DELIVERED_MS} ({@link #delivered}) and, when
 * the connection is lost within that time, queued again ({@link #redeliver}): a repeat, which
 * receivers drop by (run, sequence), instead of a loss. Kept files are named {@code NAME.sent};
 * the next start removes them (a crash of the appliance, not of the broker).
 *
 * <p>Disk policy: nothing queued is dropped. {@link #full()} says when the queued
 * bytes reach the limit; the appliance then refuses new runs until the outbox drains,
 * so the outbox can grow past the limit only by what the runs already going add.
 */
final class Outbox {
    /** One queued message. */
    record Entry(long id, String topic, byte[] payload) {
    }

    private static final String SUFFIX = ".msg";
    /** An acknowledged message kept for {@link #KEEP_DELIVERED_MS}. */
    private static final String SENT = ".sent";
    /** "RTB2": no topic of the first format is 1.4 GB long, so old files are told apart. */
    private static final int MAGIC = 0x52544232;
    private final Path dir;
    private final long maxBytes;
    private final TreeMap<Long, Long> sizes = new TreeMap<>();
    /** How long a message the broker acknowledged is kept to be sent again if the connection drops. */
    static final long KEEP_DELIVERED_MS = 10_000;
    /** Acknowledged messages still kept: id to the time of the acknowledgement (System.nanoTime). */
    private final TreeMap<Long, Long> delivered = new TreeMap<>();
    /** What runs before a message leaves, by id: a run records its sequence number (see {@link RunSession}). */
    private final java.util.Map<Long, Runnable> leaving = new java.util.HashMap<>();
    private long bytes;
    private long next;

    /** Notes kept on files set aside, for the status: at most this many, the rest counted. */
    static final int NOTES = 10;
    private final List<String> notes = new ArrayList<>();
    private int setAside;
    /** Files set aside before this start (*.bad found in the folder), waiting for a person. */
    private int setAsideEarlier;
    /** Messages in the dead-letter folder before this start. */
    private int deadEarlier;
    /** Larger than any message rtbox writes (the broker takes 4 MiB at most): a bigger file is not read into memory. */
    static final long MAX_MESSAGE_BYTES = 64L * 1024 * 1024;

    /**
     * Opens the outbox and checks every queued message once (reads it back whole): damage is
     * found, logged and set aside at start ({@link #damaged()}), not only when sending reaches it.
     */
    Outbox(Path dir, long maxBytes) throws IOException {
        this.dir = dir;
        this.maxBytes = maxBytes;
        Files.createDirectories(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                try {
                    open(f);
                } catch (IOException e) {
                    // One entry that cannot be looked at (EIO) must not stop MQTT from starting.
                    setAsideQuietly(f, "cannot be read (" + e.getClass().getSimpleName() + ")");
                }
            }
        }
        Path dead = deadLetters();
        if (Files.isDirectory(dead)) {
            try (java.util.stream.Stream<Path> s = Files.list(dead)) {
                deadEarlier = (int) s.count();
            }
        }
        next = sizes.isEmpty() ? 1 : sizes.lastKey() + 1;
        for (long id : new ArrayList<>(sizes.keySet())) {
            readOrSetAside(id);
        }
    }

    /** One entry of the folder at start: a message counted, a leftover removed, a foreign entry set aside. */
    private void open(Path f) throws IOException {
        String name = f.getFileName().toString();
        if (name.endsWith(".bad")) {
            setAsideEarlier++;
        } else if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            // A directory, a FIFO (reading it hung the start), a symbolic link (to /dev/zero: an
            // OutOfMemoryError): no message of ours; set aside, never opened.
            if (name.endsWith(SUFFIX) || name.endsWith(".tmp") || name.endsWith(SENT)) {
                setAside(f, "is " + kind(f) + ", not a message file");
            }
        } else if (name.endsWith(".tmp")) {
            Files.delete(f); // a write that a crash cut short: it was never queued
        } else if (name.endsWith(SENT)) {
            Files.delete(f); // acknowledged, kept in case the broker died: this process did
        } else if (name.endsWith(SUFFIX)) {
            String number = name.substring(0, name.length() - SUFFIX.length());
            if (!number.matches("\\d{1,18}")) {
                setAside(f, "its name is not a message number");
                return;
            }
            long id = Long.parseLong(number);
            long size = Files.size(f);
            sizes.put(id, size);
            bytes += size;
        }
    }

    /** What a folder entry that is no regular file is, in words. */
    static String kind(Path f) {
        if (Files.isSymbolicLink(f)) {
            return "a symbolic link";
        }
        if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
            return "a directory";
        }
        return Files.exists(f, LinkOption.NOFOLLOW_LINKS) ? "a special file (a FIFO, a socket or a device)"
                : "gone";
    }

    private void setAsideQuietly(Path f, String why) {
        try {
            setAside(f, why);
        } catch (IOException e) {
            Appliance.LOG.warn("outbox: {} {} and cannot be set aside ({}): skipped", f, why, e.toString());
            noteSetAside(f.getFileName() + " " + why + ", could not be renamed");
        }
    }

    /** Where messages the broker refused go ({@link #deadLetter}), beside the outbox. */
    Path deadLetters() {
        return dir.resolveSibling("dead-letter");
    }

    /**
     * The broker refused the message (it dropped the connection at its publish, again and
     * again: a packet over its max_packet_size, or a topic its ACL denies on a broker that
     * disconnects for it): moved to {@link #deadLetters()} for a person to look at, so that
     * what is queued behind it goes. Named in the status's {@code damaged}.
     */
    synchronized void deadLetter(long id, String why) throws IOException {
        leave(id);
        Long size = sizes.remove(id);
        if (size == null) {
            return;
        }
        bytes -= size;
        Path dead = deadLetters();
        Files.createDirectories(dead);
        Files.move(dir.resolve(name(id)), dead.resolve(name(id)), StandardCopyOption.REPLACE_EXISTING);
        DurableFile.syncFolder(dead);
        Appliance.LOG.warn("outbox: {} {}: moved to {}; the other messages go on", name(id), why, dead);
        if (notes.size() < NOTES) {
            notes.add("outbox: " + name(id) + " " + why + "; moved to the dead-letter folder " + dead);
        }
        setAside++;
    }

    /**
     * What was set aside since this outbox was opened (a note per file naming it and what was
     * wrong, at most {@link #NOTES}, then a count), and how many files set aside before wait
     * in the folder; empty when nothing.
     */
    synchronized List<String> damaged() {
        List<String> d = new ArrayList<>(notes);
        if (setAside > notes.size()) {
            d.add("outbox: " + (setAside - notes.size()) + " more files set aside as *.bad");
        }
        if (deadEarlier > 0) {
            d.add("outbox: " + deadEarlier + " messages the broker refused before this start wait in the dead-letter"
                    + " folder " + deadLetters() + ", for a person to look at");
        }
        if (setAsideEarlier > 0) {
            d.add("outbox: " + setAsideEarlier + " files set aside before this start wait in " + dir
                    + " (*.bad), for a person to look at");
        }
        return d;
    }

    /** Queues a message durably: when this returns, it survives a crash. */
    synchronized long add(String topic, byte[] payload) throws IOException {
        long id = next++;
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(12 + t.length + payload.length);
        buf.putInt(MAGIC).putInt(0).putInt(t.length).put(t).put(payload);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(buf.array(), 8, buf.capacity() - 8);
        buf.putInt(4, (int) crc.getValue());
        Path file = dir.resolve(name(id));
        DurableFile.write(file, buf.array());
        long size = Files.size(file);
        sizes.put(id, size);
        bytes += size;
        return id;
    }

    /**
     * Queues a message durably, runs {@code queued} before any reader can take it (the reader
     * waits on the same lock), and {@code leaving} before the message leaves the outbox
     * (acknowledged, removed or set aside): a run takes its sequence number in the first and
     * records it on disk in the second, since until then the message here carries it. Not
     * across a restart: whoever reopens the outbox reads the numbers from the messages.
     */
    synchronized long add(String topic, byte[] payload, Runnable queued, Runnable leaving) throws IOException {
        long id = add(topic, payload);
        queued.run();
        this.leaving.put(id, leaving);
        return id;
    }

    /** Runs what was to run before message {@code id} leaves the outbox ({@link #add(String, byte[], Runnable, Runnable)}). */
    private void leave(long id) {
        Runnable r = leaving.remove(id);
        if (r != null) {
            r.run();
        }
    }

    /** Every queued message that reads back whole, oldest first; damaged ones are set aside. */
    synchronized List<Entry> all() throws IOException {
        List<Entry> all = new ArrayList<>();
        for (long id : new ArrayList<>(sizes.keySet())) {
            Entry e = readOrSetAside(id);
            if (e != null) {
                all.add(e);
            }
        }
        return all;
    }

    /** The oldest message that reads back whole (damaged ones before it are set aside), or null when none. */
    synchronized Entry first() throws IOException {
        while (!sizes.isEmpty()) {
            Entry e = readOrSetAside(sizes.firstKey());
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    private Entry readOrSetAside(long id) throws IOException {
        Path f = dir.resolve(name(id));
        String damage;
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                throw new Damaged(Files.exists(f, LinkOption.NOFOLLOW_LINKS) ? "is " + kind(f)
                        + ", not a message file" : "it is gone");
            }
            long size = Files.size(f);
            if (size > MAX_MESSAGE_BYTES) {
                throw new Damaged("is " + size + " bytes long, more than any message (" + MAX_MESSAGE_BYTES + ")");
            }
            return read(id, Files.readAllBytes(f));
        } catch (java.nio.file.NoSuchFileException e) {
            damage = "it is gone";
        } catch (Damaged e) {
            damage = e.getMessage();
        } catch (IOException e) {
            // EIO on one file: that file is set aside, the rest goes.
            damage = "cannot be read (" + e.getClass().getSimpleName() + ")";
        }
        leave(id);
        Long size = sizes.remove(id);
        bytes -= size == null ? 0 : size;
        if (Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
            setAsideQuietly(f, damage);
        } else {
            Appliance.LOG.warn("outbox: {} {}: skipped", f, damage);
        }
        return null;
    }

    /** A stored message that does not read back whole. */
    private static final class Damaged extends Exception {
        private static final long serialVersionUID = 1L;

        Damaged(String message) {
            super(message);
        }
    }

    private static Entry read(long id, byte[] bytes) throws Damaged {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (bytes.length < 4) {
            throw new Damaged("is " + bytes.length + " bytes long, too short for a message");
        }
        if (buf.getInt(0) == MAGIC) {
            if (bytes.length < 12) {
                throw new Damaged("is " + bytes.length + " bytes long, too short for a message");
            }
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(bytes, 8, bytes.length - 8);
            if ((int) crc.getValue() != buf.getInt(4)) {
                throw new Damaged("fails its checksum (a bit changed on disk, or a write cut short)");
            }
            buf.position(8);
        }
        int n = buf.getInt();
        if (n <= 0 || n > buf.remaining()) {
            throw new Damaged("has a topic length of " + n + " with " + buf.remaining() + " bytes left");
        }
        byte[] t = new byte[n];
        buf.get(t);
        String topic = new String(t, StandardCharsets.UTF_8);
        if (topic.contains("#") || topic.contains("+") || topic.indexOf('\0') >= 0) {
            throw new Damaged("has the topic '" + Dispatcher.cut(topic, 100) + "', which cannot be published to");
        }
        byte[] payload = new byte[buf.remaining()];
        buf.get(payload);
        return new Entry(id, topic, payload);
    }

    private void setAside(Path f, String why) throws IOException {
        Path bad = f.resolveSibling(f.getFileName() + ".bad");
        Files.move(f, bad, StandardCopyOption.REPLACE_EXISTING);
        Appliance.LOG.warn("outbox: {} {}: set aside as {}; the other messages go on", f, why, bad.getFileName());
        noteSetAside(f.getFileName() + " " + why);
    }

    private void noteSetAside(String note) {
        if (notes.size() < NOTES) {
            notes.add("outbox: " + note + "; set aside as .bad");
        }
        setAside++;
    }

    /** Removes a message the broker acknowledged. */
    synchronized void remove(long id) throws IOException {
        leave(id);
        Long size = sizes.remove(id);
        if (size != null) {
            Files.deleteIfExists(dir.resolve(name(id)));
            bytes -= size;
        }
    }

    /**
     * The broker acknowledged the message: it leaves the queue, and its file is kept for
     * {@link #KEEP_DELIVERED_MS} in case the broker dies before it saved it; older kept files
     * are removed.
     */
    synchronized void delivered(long id) throws IOException {
        leave(id);
        Long size = sizes.remove(id);
        if (size != null) {
            bytes -= size;
            // Renamed, not forced: a crash of the appliance itself leaves the broker's store as it
            // was, so a kept file is not sent again then (the next start removes it).
            Files.move(dir.resolve(name(id)), dir.resolve(name(id) + SENT), StandardCopyOption.REPLACE_EXISTING);
            delivered.put(id, System.nanoTime());
        }
        sweep();
    }

    /** Removes the files of messages acknowledged more than {@link #KEEP_DELIVERED_MS} ago. */
    synchronized void sweep() throws IOException {
        long now = System.nanoTime();
        while (!delivered.isEmpty()) {
            java.util.Map.Entry<Long, Long> oldest = delivered.firstEntry();
            if (now - oldest.getValue() < KEEP_DELIVERED_MS * 1_000_000) {
                return;
            }
            delivered.remove(oldest.getKey());
            Files.deleteIfExists(dir.resolve(name(oldest.getKey()) + SENT));
        }
    }

    /**
     * The connection was lost: the messages acknowledged in the last {@link #KEEP_DELIVERED_MS}
     * are queued again, in their order, since the broker may have died before saving them.
     * Returns how many.
     */
    synchronized int redeliver() throws IOException {
        sweep();
        int n = 0;
        for (long id : delivered.keySet()) {
            Path f = dir.resolve(name(id));
            if (Files.exists(f.resolveSibling(name(id) + SENT))) {
                Files.move(f.resolveSibling(name(id) + SENT), f, StandardCopyOption.REPLACE_EXISTING);
                long size = Files.size(f);
                sizes.put(id, size);
                bytes += size;
                n++;
            }
        }
        delivered.clear();
        return n;
    }

    /** Removes the kept files of every acknowledged message: the broker is there and was left cleanly. */
    synchronized void forgetDelivered() throws IOException {
        for (long id : delivered.keySet()) {
            Files.deleteIfExists(dir.resolve(name(id) + SENT));
        }
        delivered.clear();
    }

    /** Sets a damaged message aside (renamed *.bad, kept for a person to look at) so the rest can go. */
    synchronized void quarantine(long id) throws IOException {
        leave(id);
        Long size = sizes.remove(id);
        if (size != null) {
            Files.move(dir.resolve(name(id)), dir.resolve(name(id) + ".bad"), StandardCopyOption.REPLACE_EXISTING);
            bytes -= size;
            noteSetAside(name(id) + " could not be read or published");
        }
    }

    synchronized int size() {
        return sizes.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized boolean full() {
        return bytes >= maxBytes;
    }

    long maxBytes() {
        return maxBytes;
    }

    /** Ids queued now, oldest first (for tests). */
    synchronized List<Long> ids() {
        return Collections.unmodifiableList(new ArrayList<>(sizes.keySet()));
    }

    private static String name(long id) {
        return String.format(Locale.ROOT, "%016d", id) + SUFFIX;
    }

}
