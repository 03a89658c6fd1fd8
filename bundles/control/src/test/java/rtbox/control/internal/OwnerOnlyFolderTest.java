package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerOnlyFolderTest {
    @TempDir
    Path tmp;

    @Test
    void aFolderMadeWithTheUmaskIsTightenedWithItsFilesAndALinkIsLeftAlone() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("data/control"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path db = Files.writeString(dir.resolve("db.mv.db"), "x");
        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-r--r--"));
        Path outside = Files.writeString(tmp.resolve("outside"), "y");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createSymbolicLink(dir.resolve("link"), outside);

        OwnerOnlyFolder.ensure(dir);

        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(db)));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(outside)),
                "a link's target is not the control room's to change");
    }

    @Test
    void aMissingFolderIsMadeOwnerOnly() throws Exception {
        Path dir = OwnerOnlyFolder.ensure(tmp.resolve("a/control"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    }

    @Test
    void theDefaultDatabaseUrlMakesItsFolderOwnerOnly() throws Exception {
        Path data = tmp.resolve("data");
        Files.createDirectories(data.resolve("control"));
        Files.setPosixFilePermissions(data.resolve("control"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ControlCommand.h2Url(data);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("control"))));
    }
}
