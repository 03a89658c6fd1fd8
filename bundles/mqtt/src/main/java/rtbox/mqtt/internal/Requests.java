package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import rtbox.os.AppendLog;

/**
 * The request ids the appliance has answered, with their replies, on disk, so that a
 * command repeated after a restart is answered again and not executed twice.
 *
 * <p>File {@code requests.log}, in rtbox's one log format ({@link AppendLog}): a record
 * {@code P ID VERB} when a command starts executing and {@code D ID BASE64(REPLY)} when it
 * is answered; each appended and forced to disk before the command runs or its reply is
 * queued. A line that does not read back whole (a torn write at a crash) is skipped. A command
 * that started but has no reply (the appliance died while executing it) is reported by
 * {@link #interrupted()}: its outcome is unknown, so a repeat must not execute it either.
 *
 * <p>Policy: the last {@code remembered} ids are kept, and no more than {@code maxBytes} of
 * their replies (oldest forgotten first, whichever limit is reached; the newest is always
 * kept): memory is bounded in count and in bytes. The file is rewritten with only those when
 * it holds twice as many records or bytes, so it stays below about twice either limit. It is
 * read record by record at start, keeping only what is remembered: a file of any size loads
 * in bounded memory. Only the cmd thread uses it.
 */
final class Requests {
    private final Path file;
    private final AppendLog log;
    private final int remembered;
    private final long maxBytes;
    /** Bytes of the replies remembered, and bytes appended to the file since it was last rewritten. */
    private long bytes, fileBytes;
    private final LinkedHashMap<String, byte[]> answered = new LinkedHashMap<>();
    private final LinkedHashMap<String, String> started = new LinkedHashMap<>();
    private final List<String> damaged = new ArrayList<>();
    private int records;

    /** Where the requests are kept. */
    Path file() {
        return file;
    }

    Requests(Path file, int remembered) throws IOException {
        this(file, remembered, 2L * 1024 * 1024);
    }

    Requests(Path file, int remembered, long maxBytes) throws IOException {
        this.file = file;
        this.log = new AppendLog(file);
        this.remembered = Math.max(16, remembered);
        this.maxBytes = Math.max(64 * 1024, maxBytes);
        if (Files.exists(file)) {
            load();
        }
    }

    private void load() throws IOException {
        fileBytes = Files.size(file);
        // A record longer than all the replies kept together is not kept anyway: skipped unread.
        damaged.addAll(log.read(this::loadRecord, maxBytes * 4 / 3 + 200));
    }

    private void loadRecord(String r) {
        String[] f = r.split(" ", 3);
        if (f.length != 3) {
            damaged.add("record '" + shorten(r) + "': not P ID VERB or D ID REPLY");
            return;
        }
        records++;
        if ("P".equals(f[0])) {
            started.put(f[1], f[2]);
        } else if ("D".equals(f[0])) {
            started.remove(f[1]);
            try {
                remember(f[1], Base64.getDecoder().decode(f[2]));
            } catch (IllegalArgumentException e) {
                damaged.add("record for " + shorten(f[1]) + ": the reply is not base64");
            }
        } else {
            damaged.add("record '" + shorten(r) + "': not P ID VERB or D ID REPLY");
        }
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    /** Lines skipped as damaged when the file was read. */
    List<String> damaged() {
        return damaged;
    }

    /** The reply already sent for {@code id}, or null. */
    byte[] reply(String id) {
        return answered.get(id);
    }

    /** Commands that started before a restart and got no reply: id to verb. */
    Map<String, String> interrupted() {
        return new LinkedHashMap<>(started);
    }

    /** Records that the command {@code id} starts executing; on disk when this returns. */
    void begin(String id, String verb) throws IOException {
        String v = verb == null ? "?" : verb.replaceAll("[^A-Za-z0-9._-]", "?");
        started.put(id, v);
        append("P " + id + " " + v);
    }

    /** Records the reply to {@code id}; on disk when this returns. */
    void answer(String id, byte[] reply) throws IOException {
        started.remove(id);
        remember(id, reply);
        append("D " + id + " " + Base64.getEncoder().encodeToString(reply));
        if (records > 2 * remembered || fileBytes > 2 * maxBytes) {
            compact();
        }
    }

    private void remember(String id, byte[] reply) {
        byte[] old = answered.remove(id);
        bytes -= old == null ? 0 : old.length;
        answered.put(id, reply);
        bytes += reply.length;
        while (answered.size() > remembered || bytes > maxBytes && answered.size() > 1) {
            java.util.Iterator<byte[]> oldest = answered.values().iterator();
            bytes -= oldest.next().length;
            oldest.remove();
        }
    }

    /** Bytes of the replies remembered now. */
    long bytes() {
        return bytes;
    }

    int size() {
        return answered.size();
    }

    private void append(String record) throws IOException {
        log.append(record);
        records++;
        fileBytes += record.length() + 20;
    }

    /** Rewrites the file with the remembered replies and the commands still executing. */
    private void compact() throws IOException {
        List<String> keep = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : answered.entrySet()) {
            keep.add("D " + e.getKey() + " " + Base64.getEncoder().encodeToString(e.getValue()));
        }
        for (Map.Entry<String, String> e : started.entrySet()) {
            keep.add("P " + e.getKey() + " " + e.getValue());
        }
        log.rewrite(keep);
        records = keep.size();
        fileBytes = Files.size(file);
    }
}
