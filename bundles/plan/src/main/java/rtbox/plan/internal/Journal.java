package rtbox.plan.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * The result journal: an append-only file of records, one a line, each
 * {@code CRC32 LENGTH JSON} (the CRC32 in 8 hex digits over the JSON's UTF-8 bytes,
 * the length in bytes). {@link #append} writes a whole record in one write and
 * forces it to the disk before it returns, so a record reported anywhere is on
 * the disk. A kill -9 or a power cut during a write leaves a torn last line; a
 * reader skips any line whose length or checksum does not match (and says where),
 * and the next append starts on a new line, leaving the torn bytes behind as
 * evidence but never in the way.
 */
final class Journal {
    private final Path file;

    Journal(Path file) {
        this.file = file;
    }

    Path path() {
        return file;
    }

    /** Appends one record (JSON without line breaks) and syncs it. */
    synchronized void append(String json) throws IOException {
        if (json.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a journal record is one line");
        }
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(body);
        byte[] head = String.format(Locale.ROOT, "%08x %d ", crc.getValue(), body.length)
                .getBytes(StandardCharsets.US_ASCII);
        boolean created = !Files.exists(file);
        if (created) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            long size = ch.size();
            boolean torn = false;
            if (size > 0) {
                ByteBuffer last = ByteBuffer.allocate(1);
                ch.read(last, size - 1);
                torn = last.get(0) != '\n';
            }
            ByteBuffer b = ByteBuffer.allocate((torn ? 1 : 0) + head.length + body.length + 1);
            if (torn) {
                b.put((byte) '\n');
            }
            b.put(head).put(body).put((byte) '\n').flip();
            ch.position(size);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        if (created) {
            try (FileChannel dir = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            } catch (IOException e) {
                // a folder that cannot be synced: the file itself is
            }
        }
    }

    /** The records that read back whole, and a note for each damaged line skipped. */
    record Contents(List<String> records, List<String> damaged) {
    }

    Contents read() throws IOException {
        List<String> records = new ArrayList<>();
        List<String> damaged = new ArrayList<>();
        if (!Files.exists(file)) {
            return new Contents(records, damaged);
        }
        byte[] all = Files.readAllBytes(file);
        int start = 0;
        int line = 1;
        while (start < all.length) {
            int end = start;
            while (end < all.length && all[end] != '\n') {
                end++;
            }
            boolean complete = end < all.length;
            if (end > start) {
                String why = check(all, start, end);
                if (why == null && !complete) {
                    why = "no line end";
                }
                if (why == null) {
                    int sp1 = indexOf(all, start, end, (byte) ' ');
                    int sp2 = indexOf(all, sp1 + 1, end, (byte) ' ');
                    records.add(new String(all, sp2 + 1, end - sp2 - 1, StandardCharsets.UTF_8));
                } else {
                    damaged.add(String.format(Locale.ROOT, "line %d (bytes %d to %d%s): %s", line, start, end,
                            complete ? "" : ", the end of the file", why));
                }
            }
            start = end + 1;
            line++;
        }
        return new Contents(records, damaged);
    }

    /** Null when the line is a whole record, or why not. */
    private static String check(byte[] a, int start, int end) {
        int sp1 = indexOf(a, start, end, (byte) ' ');
        if (sp1 != start + 8) {
            return "no checksum";
        }
        int sp2 = indexOf(a, sp1 + 1, end, (byte) ' ');
        if (sp2 < 0) {
            return "no length";
        }
        long crcWanted, length;
        try {
            crcWanted = Long.parseLong(new String(a, start, 8, StandardCharsets.US_ASCII), 16);
            length = Long.parseLong(new String(a, sp1 + 1, sp2 - sp1 - 1, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return "bad header";
        }
        int bodyLength = end - sp2 - 1;
        if (bodyLength != length) {
            return "cut short: " + bodyLength + " of " + length + " bytes";
        }
        CRC32 crc = new CRC32();
        crc.update(a, sp2 + 1, bodyLength);
        if (crc.getValue() != crcWanted) {
            return "checksum mismatch";
        }
        return null;
    }

    private static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = Math.max(from, 0); i < to; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
