package rtbox.os;

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
 * rtbox's one append-only log format, writer and reader side by side (the plan result
 * journal and the appliance's request log use it): records, one a line, each
 * {@code CRC32 LENGTH JSON} (the CRC32 in 8 hex digits over the JSON's UTF-8 bytes,
 * the length in bytes). {@link #append} writes a whole record in one write and
 * forces it to the disk before it returns, so a record reported anywhere is on
 * the disk. A kill -9 or a power cut during a write leaves a torn last line; a
 * reader skips any line whose length or checksum does not match (and says where),
 * and the next append starts on a new line, leaving the torn bytes behind as
 * evidence but never in the way.
 */
public final class AppendLog {
    private final Path file;

    public AppendLog(Path file) {
        this.file = file;
    }

    public Path path() {
        return file;
    }

    /** Appends one record (JSON without line breaks) and syncs it. */
    public synchronized void append(String json) throws IOException {
        byte[] line = line(json);
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
            ByteBuffer b = ByteBuffer.allocate((torn ? 1 : 0) + line.length);
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
        if (created) {
            DurableFile.syncFolder(file.toAbsolutePath().getParent());
        }
    }

    /** The records that read back whole, and a note for each damaged line skipped. */
    public record Contents(List<String> records, List<String> damaged) {
    }

    /**
     * Reads the log from the start as a stream, a line at a time: a log far larger than the
     * heap's share for it is read without holding it whole.
     */
    public Contents read() throws IOException {
        List<String> records = new ArrayList<>();
        List<String> damaged = read(records::add);
        return new Contents(records, damaged);
    }

    /**
     * Reads the log from the start as a stream, handing each record that reads back whole to
     * {@code each} as it is read, so that the reader keeps only what it needs (a log of 44 MB
     * read into a list filled the 48 MB heap). Returns a note for each damaged line skipped.
     *
     * @since 1.7
     */
    public List<String> read(java.util.function.Consumer<String> each) throws IOException {
        return read(each, Long.MAX_VALUE);
    }

    /**
     * As {@link #read(java.util.function.Consumer)}, but a line longer than {@code maxRecordBytes}
     * is skipped without being held (a note says so): one huge line cannot fill the heap.
     *
     * @since 1.7
     */
    public List<String> read(java.util.function.Consumer<String> each, long maxRecordBytes) throws IOException {
        List<String> damaged = new ArrayList<>();
        if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return damaged;
        }
        if (!Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // A directory, a FIFO (reading it hangs), a symbolic link (to /dev/zero: an endless line): never
            // opened; set aside, and the log starts again beside it.
            damaged.add(setAside(Files.isSymbolicLink(file) ? "is a symbolic link, not a log file"
                    : Files.isDirectory(file, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "is a directory, not a log file"
                            : "is a special file (a FIFO, a socket or a device), not a log file"));
            return damaged;
        }
        try {
            return readRegular(each, maxRecordBytes, damaged);
        } catch (java.nio.file.NoSuchFileException e) {
            return damaged;
        } catch (IOException e) {
            // EIO: what was read stays read; the file is set aside so that the next start reads past it.
            damaged.add(setAside("cannot be read (" + e.getClass().getSimpleName() + ")"));
            return damaged;
        }
    }

    /** Renames the log to NAME.bad, for a person to look at; says so. */
    private String setAside(String why) throws IOException {
        Path bad = file.resolveSibling(file.getFileName() + ".bad");
        Files.move(file, bad, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return "the whole file " + why + ": set aside as " + bad.getFileName();
    }

    private List<String> readRegular(java.util.function.Consumer<String> each, long maxRecordBytes,
            List<String> damaged) throws IOException {
        try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file), 65536)) {
            java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
            long offset = 0;
            long start = 0;
            int number = 1;
            int c;
            boolean tooLong = false;
            while (true) {
                c = in.read();
                if (c >= 0 && c != '\n') {
                    if (offset - start < maxRecordBytes) {
                        line.write(c);
                    } else if (!tooLong) {
                        tooLong = true;
                        line = new java.io.ByteArrayOutputStream(); // let the long line's bytes go
                    }
                    offset++;
                    continue;
                }
                boolean complete = c == '\n';
                if (tooLong) {
                    damaged.add(String.format(Locale.ROOT, "line %d (bytes %d to %d): longer than %d bytes, skipped",
                            number, start, offset, maxRecordBytes));
                    tooLong = false;
                } else if (line.size() > 0) {
                    byte[] all = line.toByteArray();
                    String why = check(all, 0, all.length);
                    if (why == null && !complete) {
                        why = "no line end";
                    }
                    if (why == null) {
                        int sp1 = indexOf(all, 0, all.length, (byte) ' ');
                        int sp2 = indexOf(all, sp1 + 1, all.length, (byte) ' ');
                        each.accept(new String(all, sp2 + 1, all.length - sp2 - 1, StandardCharsets.UTF_8));
                    } else {
                        damaged.add(String.format(Locale.ROOT, "line %d (bytes %d to %d%s): %s", number, start, offset,
                                complete ? "" : ", the end of the file", why));
                    }
                }
                if (!complete) {
                    break;
                }
                line.reset();
                offset++;
                start = offset;
                number++;
            }
        }
        return damaged;
    }

    /**
     * Replaces the whole log with {@code records} (compaction: what is no longer needed
     * dropped), durably through {@link DurableFile}: a crash leaves the old log or the new.
     */
    public synchronized void rewrite(List<String> records) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (String r : records) {
            all.write(line(r));
        }
        DurableFile.write(file, all.toByteArray());
    }

    /**
     * Compaction as a stream: replaces the log with the records for which {@code keep} is true, in
     * their order, durably (a crash leaves the old log or the new), never holding the log whole.
     * Damaged lines are not copied. Returns the number of records kept.
     *
     * @since 1.9
     */
    public synchronized int retain(java.util.function.Predicate<String> keep) throws IOException {
        int[] kept = {0};
        DurableFile.write(file, out -> {
            IOException[] failed = {null};
            read(record -> {
                if (failed[0] == null && keep.test(record)) {
                    try {
                        out.write(line(record));
                        kept[0]++;
                    } catch (IOException e) {
                        failed[0] = e;
                    }
                }
            });
            if (failed[0] != null) {
                throw failed[0];
            }
        });
        return kept[0];
    }

    /** One record as its line: checksum, length, the record, a line end. */
    private static byte[] line(String record) {
        if (record.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a log record is one line");
        }
        byte[] body = record.getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(body);
        byte[] head = String.format(Locale.ROOT, "%08x %d ", crc.getValue(), body.length)
                .getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + body.length + 1];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        out[out.length - 1] = '\n';
        return out;
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
