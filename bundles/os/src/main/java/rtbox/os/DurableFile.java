package rtbox.os;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A file replaced so that a crash or power loss leaves either its old content or all of
 * the new, never a mix: the content goes to a sibling {@code NAME.tmp}, is forced to the
 * disk, renamed over {@code NAME} (atomically where the file system can), and the folder
 * is forced so the rename itself survives. rtbox's one copy of this sequence: the outbox,
 * the request log, run markers, the tuner's and the trace's state files and the control
 * room's plan library all write through it. A write that fails (a full disk) leaves the
 * old file and removes its {@code .tmp}.
 */
public final class DurableFile {

    private DurableFile() {
    }

    /** Replaces (or creates) {@code file} with {@code content}, durably; creates its folder if needed. */
    public static void write(Path file, byte[] content) throws IOException {
        write(file, out -> out.write(content));
    }

    /** What a file is made of, written as a stream (a file larger than the heap's share for it). */
    @FunctionalInterface
    public interface Content {
        void writeTo(java.io.OutputStream out) throws IOException;
    }

    /**
     * As {@link #write(Path, byte[])}, the content written as a stream by {@code content}, never
     * held whole; a failure in {@code content} leaves the old file as a full disk would.
     *
     * @since 1.9
     */
    public static void write(Path file, Content content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                java.io.OutputStream out = new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch),
                        65536);
                content.writeTo(out);
                out.flush();
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            // A full disk (ENOSPC) or a write error: the old file stays whole, and no .tmp is left behind.
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // what could not be removed is removed at the next write or start
            }
            throw e;
        }
        syncFolder(dir);
    }

    /**
     * Forces a folder's entries (a rename, a new or deleted file) to the disk. Some file
     * systems cannot sync a folder: then the files themselves are synced and that is all
     * there is to do.
     */
    public static void syncFolder(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not supported here: nothing more can be done
        }
    }
}
