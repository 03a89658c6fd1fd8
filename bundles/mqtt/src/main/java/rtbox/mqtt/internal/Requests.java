package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

import rtbox.os.DurableFile;

/**
 * The request ids the appliance has answered, with their replies, on disk, so that a
 * command repeated after a restart is answered again and not executed twice.
 *
 * <p>File {@code requests.log}: one record a line, {@code CRC32 P ID VERB} when a
 * command starts executing and {@code CRC32 D ID BASE64(REPLY)} when it is answered;
 * each appended and forced to disk before the command runs or its reply is queued. A
 * line whose checksum does not match (a torn write at a crash) is skipped. A command
 * that started but has no reply (the appliance died while executing it) is reported by
 * {@link #interrupted()}: its outcome is unknown, so a repeat must not execute it either.
 *
 * <p>Policy: the last {@code remembered} ids are kept (oldest forgotten first). The file
 * is rewritten with only those when it holds twice as many records, so it stays below
 * about 2 x remembered replies. Only the cmd thread uses it.
 */
final class Requests {
    private final Path file;
    private final int remembered;
    private final LinkedHashMap<String, byte[]> answered = new LinkedHashMap<>();
    private final LinkedHashMap<String, String> started = new LinkedHashMap<>();
    private final List<String> damaged = new ArrayList<>();
    private int records;

    /** Where the requests are kept. */
    Path file() {
        return file;
    }

    Requests(Path file, int remembered) throws IOException {
        this.file = file;
        this.remembered = Math.max(16, remembered);
        if (Files.exists(file)) {
            load();
        }
    }

    private void load() throws IOException {
        int n = 0;
        for (String line : Files.readString(file, StandardCharsets.ISO_8859_1).split("\n")) {
            n++;
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ", 4);
            if (f.length != 4 || line.length() < 10 || !f[0].equals(crc(line.substring(9)))) {
                damaged.add("line " + n);
                continue;
            }
            records++;
            if ("P".equals(f[1])) {
                started.put(f[2], f[3]);
            } else if ("D".equals(f[1])) {
                started.remove(f[2]);
                try {
                    remember(f[2], Base64.getDecoder().decode(f[3]));
                } catch (IllegalArgumentException e) {
                    damaged.add("line " + n);
                }
            } else {
                damaged.add("line " + n);
            }
        }
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
        if (records > 2 * remembered) {
            compact();
        }
    }

    private void remember(String id, byte[] reply) {
        answered.remove(id);
        answered.put(id, reply);
        while (answered.size() > remembered) {
            answered.remove(answered.keySet().iterator().next());
        }
    }

    int size() {
        return answered.size();
    }

    private void append(String record) throws IOException {
        byte[] line = (crc(record) + " " + record + "\n").getBytes(StandardCharsets.ISO_8859_1);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer last = ByteBuffer.allocate(1);
            // After a torn write the file does not end with a line end: start on a line of our own.
            boolean torn = size > 0 && ch.read(last, size - 1) == 1 && last.get(0) != '\n';
            ByteBuffer b = ByteBuffer.allocate(line.length + (torn ? 1 : 0));
            if (torn) {
                b.put((byte) '\n');
            }
            b.put(line).flip();
            ch.position(size);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        records++;
    }

    /** Rewrites the file with the remembered replies and the commands still executing. */
    private void compact() throws IOException {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, byte[]> e : answered.entrySet()) {
            String r = "D " + e.getKey() + " " + Base64.getEncoder().encodeToString(e.getValue());
            b.append(crc(r)).append(' ').append(r).append('\n');
        }
        for (Map.Entry<String, String> e : started.entrySet()) {
            String r = "P " + e.getKey() + " " + e.getValue();
            b.append(crc(r)).append(' ').append(r).append('\n');
        }
        DurableFile.write(file, b.toString().getBytes(StandardCharsets.ISO_8859_1));
        records = answered.size() + started.size();
    }

    private static String crc(String record) {
        CRC32 c = new CRC32();
        c.update(record.getBytes(StandardCharsets.ISO_8859_1));
        return String.format(Locale.ROOT, "%08x", c.getValue());
    }
}
