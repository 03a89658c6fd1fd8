package rtbox.control.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The control room's own folder (DATA/control: the H2 database, its lock file, the admin
 * password) made readable by its owner only, at every start: the folder 0700, every regular
 * file in it 0600. H2 makes its files with the process's umask (0644), and its lock file names
 * the AUTO_SERVER port; another local account that could read them could reach the database
 * (issue 31). A folder made before this, or opened up by hand, is tightened, not refused.
 */
final class OwnerOnlyFolder {
    static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFolder() {
    }

    /** Creates {@code dir} if needed and tightens it and its regular files; symbolic links are left as they are. */
    static Path ensure(Path dir) throws IOException {
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, FOLDER);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                        Files.setPosixFilePermissions(f, FILE);
                    }
                }
            }
        } catch (UnsupportedOperationException notPosix) {
            // A file system without POSIX permissions (not one rtbox ships on): nothing to tighten.
        }
        return dir;
    }
}
