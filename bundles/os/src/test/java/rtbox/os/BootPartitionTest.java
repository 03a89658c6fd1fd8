package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.os.internal.LibC;

/**
 * The next boot's kernel on a boot partition: the file rewritten, the partition made writable
 * for that moment and read-only again (on a real read-only tmpfs mount, where this machine lets
 * the test mount one), and the clear word on a machine that is not the image.
 */
class BootPartitionTest {
    @TempDir
    Path dir;

    @Test
    void choosingAnEntryRewritesTheDefaultAndTellsTheOneItWas() throws Exception {
        Path cfg = dir.resolve("syslinux.cfg");
        Files.writeString(cfg, BootConfigTest.IMAGE);
        assertEquals("stock", BootPartition.choose(cfg, "rt"));
        assertEquals(BootConfigTest.IMAGE.replace("DEFAULT stock", "DEFAULT rt"), Files.readString(cfg));
        long modified = Files.getLastModifiedTime(cfg).toMillis();
        // the same again: nothing written
        assertEquals("rt", BootPartition.choose(cfg, "rt"));
        assertEquals(modified, Files.getLastModifiedTime(cfg).toMillis());
        assertEquals("rt", BootPartition.choose(cfg, "stock"));
        assertEquals(BootConfigTest.IMAGE, Files.readString(cfg));
        assertFalse(Files.exists(dir.resolve("syslinux.cfg.tmp")), "no temporary file left");
    }

    @Test
    void anEntryTheFileDoesNotHaveChangesNothing() throws Exception {
        Path cfg = dir.resolve("syslinux.cfg");
        Files.writeString(cfg, BootConfigTest.IMAGE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BootPartition.choose(cfg, "lts"));
        assertEquals("no boot entry 'lts': the boot configuration has stock, rt", e.getMessage());
        assertEquals(BootConfigTest.IMAGE, Files.readString(cfg));
    }

    @Test
    void aMachineWithoutTheImagesBootConfigurationIsToldSo() throws Exception {
        Path none = dir.resolve("boot/syslinux.cfg");
        BootPartition.NotTheImage e = assertThrows(BootPartition.NotTheImage.class, () -> BootPartition.choose(none, "rt"));
        assertTrue(e.getMessage().startsWith("this machine was not started from the rtbox image: there is no " + none),
                e.getMessage());
        assertFalse(Files.exists(none));
        // a file without entries is no image's either
        Path empty = dir.resolve("syslinux.cfg");
        Files.writeString(empty, "PROMPT 0\n");
        assertTrue(assertThrows(BootPartition.NotTheImage.class, () -> BootPartition.read(empty)).getMessage()
                .contains(empty + " has no boot entry (LABEL)"));
    }

    @Test
    void theBootedEntryComesFromTheKernelCommandLine() {
        assertEquals("rt", BootPartition.booted("BOOT_IMAGE=/vmlinuz-rt root=/dev/sda2 rtbox.kernel=rt rtbox.mode=appliance\n"));
        assertEquals("", BootPartition.booted("BOOT_IMAGE=/boot/vmlinuz-6.1.0 root=UUID=x ro quiet"));
        // this machine's: "" unless it runs the image
        assertTrue(BootPartition.booted().matches("[A-Za-z0-9._-]*"));
    }

    @Test
    void theMountOfAFolderAndItsFlags() throws Exception {
        List<String> mounts = List.of("/dev/sda2 / ext4 ro,noatime 0 0", "/dev/sda3 /data ext4 rw,noatime,nodev 0 0",
                "/dev/sda1 /boot vfat ro,nodev,noexec,noatime,fmask=0022,codepage=437 0 0",
                "tmpfs /bootleg tmpfs rw 0 0");
        BootPartition.Mount boot = BootPartition.Mount.of("/boot", mounts);
        assertEquals("/boot", boot.point());
        assertEquals(LibC.MS_RDONLY | LibC.MS_NODEV | LibC.MS_NOEXEC | LibC.MS_NOATIME, boot.flags());
        assertEquals("/", BootPartition.Mount.of("/opt/rtbox", mounts).point());
        assertEquals("/bootleg", BootPartition.Mount.of("/bootleg/x", mounts).point());
    }

    @Test
    void aReadOnlyPartitionIsMadeWritableForTheWriteAndReadOnlyAgain() throws Exception {
        Path boot = Files.createDirectory(dir.resolve("boot"));
        // a tmpfs of its own, as rcS mounts the image's FAT partition: read-only, nodev, noexec, noatime
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=1m,nodev,noexec,noatime", "rtbox-boottest", boot.toString()) == 0,
                "this machine does not let the test mount a tmpfs (not root, or no CAP_SYS_ADMIN): the remount is"
                        + " checked on the image by its boot test");
        try {
            Path cfg = boot.resolve("syslinux.cfg");
            Files.writeString(cfg, BootConfigTest.IMAGE);
            assertEquals(0, run("mount", "-o", "remount,ro", boot.toString()));
            assertTrue(Files.getFileStore(boot).isReadOnly());
            assertEquals("stock", BootPartition.choose(cfg, "rt"));
            assertEquals("rt", BootConfig.parse(Files.readString(cfg, StandardCharsets.ISO_8859_1)).defaultLabel());
            assertTrue(Files.getFileStore(boot).isReadOnly(), "read-only again after the write");
            String point = boot.toRealPath().toString();
            String line = Procfs.mounts().stream().filter(l -> l.split(" ")[1].equals(point))
                    .findFirst().orElseThrow();
            assertTrue(line.contains("ro,nodev,noexec,noatime"), "its other flags kept: " + line);
        } finally {
            assertEquals(0, run("umount", boot.toString()));
        }
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return p.exitValue();
    }
}
