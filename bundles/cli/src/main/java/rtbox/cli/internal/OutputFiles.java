package rtbox.cli.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Checks, before a run measures, that each file a result goes to can be written: {@code --json
 * /proc/x.json} failed only after the whole measurement, and the figures were lost. The file is
 * opened for writing (created if need be, its folders too, as the write after the run would) and
 * a file that did not exist before is removed again, so a refused or failed run leaves nothing.
 */
final class OutputFiles {
    private OutputFiles() {
    }

    /** Null when {@code file} (given with {@code option}) can be written, else why not. */
    static String unwritable(String option, Path file) {
        if (file == null) {
            return null;
        }
        if (Files.isDirectory(file)) {
            return option + " " + file + " is a folder: give a file name";
        }
        boolean existed = Files.exists(file);
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                // opened: the write after the run can create or replace it
            }
            if (!existed) {
                Files.deleteIfExists(file);
            }
            return null;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return option + " " + file + " cannot be written (" + describe(e) + "): nothing was measured; give a "
                    + "file in a folder you can write";
        }
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file or folder";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
