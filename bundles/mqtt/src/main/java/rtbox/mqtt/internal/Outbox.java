package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import rtbox.os.DurableFile;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * Messages waiting to be published, on disk, in order. Each message is one file,
 * named by a counter that only grows, written to a temporary name, forced to disk
 * and renamed, so a power loss leaves either the whole message or none of it. A
 * message is removed only after the broker acknowledged it (QoS 1), so a crash
 * between the acknowledgement and the removal sends it again: receivers drop the
 * repeat by its (run, sequence).
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
    private final Path dir;
    private final long maxBytes;
    private final TreeMap<Long, Long> sizes = new TreeMap<>();
    private long bytes;
    private long next;

    Outbox(Path dir, long maxBytes) throws IOException {
        this.dir = dir;
        this.maxBytes = maxBytes;
        Files.createDirectories(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(".tmp")) {
                    Files.delete(f); // a write that a crash cut short: it was never queued
                } else if (name.endsWith(SUFFIX)) {
                    long id = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
                    long size = Files.size(f);
                    sizes.put(id, size);
                    bytes += size;
                }
            }
        }
        next = sizes.isEmpty() ? 1 : sizes.lastKey() + 1;
    }

    /** Queues a message durably: when this returns, it survives a crash. */
    synchronized long add(String topic, byte[] payload) throws IOException {
        long id = next++;
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(4 + t.length + payload.length);
        buf.putInt(t.length).put(t).put(payload);
        Path file = dir.resolve(name(id));
        DurableFile.write(file, buf.array());
        long size = Files.size(file);
        sizes.put(id, size);
        bytes += size;
        return id;
    }

    /**
     * Queues a message durably and runs {@code queued} before any reader can take it
     * (the reader waits on the same lock): a run records its sequence number there.
     */
    synchronized long add(String topic, byte[] payload, Runnable queued) throws IOException {
        long id = add(topic, payload);
        queued.run();
        return id;
    }

    /** Every queued message, oldest first. */
    synchronized List<Entry> all() throws IOException {
        List<Entry> all = new ArrayList<>();
        for (long id : sizes.keySet()) {
            all.add(read(id));
        }
        return all;
    }

    /** The oldest message, or null when the outbox is empty. */
    synchronized Entry first() throws IOException {
        if (sizes.isEmpty()) {
            return null;
        }
        return read(sizes.firstKey());
    }

    private Entry read(long id) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(dir.resolve(name(id))));
        int n = buf.getInt();
        if (n < 0 || n > buf.remaining()) {
            throw new IOException("outbox message " + dir.resolve(name(id)) + " is damaged: topic length " + n);
        }
        byte[] t = new byte[n];
        buf.get(t);
        byte[] payload = new byte[buf.remaining()];
        buf.get(payload);
        return new Entry(id, new String(t, StandardCharsets.UTF_8), payload);
    }

    /** Removes a message the broker acknowledged. */
    synchronized void remove(long id) throws IOException {
        Long size = sizes.remove(id);
        if (size != null) {
            Files.deleteIfExists(dir.resolve(name(id)));
            bytes -= size;
        }
    }

    /** Sets a damaged message aside (renamed *.bad, kept for a person to look at) so the rest can go. */
    synchronized void quarantine(long id) throws IOException {
        Long size = sizes.remove(id);
        if (size != null) {
            Files.move(dir.resolve(name(id)), dir.resolve(name(id) + ".bad"), StandardCopyOption.REPLACE_EXISTING);
            bytes -= size;
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
