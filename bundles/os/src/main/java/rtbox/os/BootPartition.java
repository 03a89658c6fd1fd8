package rtbox.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;

import rtbox.os.internal.LibC;

/**
 * The rtbox image's boot partition: which kernel the next boot starts. The image's FAT
 * partition holds SYSLINUX and its {@code syslinux.cfg} (an entry per kernel: {@code stock},
 * {@code rt}); rcS mounts it read-only on {@code /boot}. Choosing a kernel rewrites the
 * file's DEFAULT ({@link BootConfig}): the partition is remounted read-write for that moment
 * (mount(2) with MS_REMOUNT, its other mount flags kept), the new text written through
 * {@link DurableFile} (a sibling file forced to the card, renamed over the old one, the folder
 * forced) and the partition made read-only again, also when the write failed. FAT has no
 * journal: a power loss during the rename can leave the old file or the new one, which
 * SYSLINUX both boots; the read-only mount the rest of the time keeps the partition clean.
 *
 * <p>A machine without that file is not the image (a PC, a board installed otherwise): every
 * method then throws {@link NotTheImage}, whose message says so.
 *
 * @since 1.11
 */
public final class BootPartition {
    /** Where the image's rcS mounts the boot partition's configuration. */
    public static final Path CONFIG = Path.of("/boot/syslinux.cfg");

    /**
     * The boot configuration this JVM works on: {@link #CONFIG}, or the system property
     * {@code rtbox.boot.config} (tests, an image with another layout). A property rather than a
     * component's configuration because the command line and the MQTT verb, each in its own
     * bundle, must agree on it.
     */
    public static Path config() {
        String p = System.getProperty("rtbox.boot.config");
        return p == null || p.isBlank() ? CONFIG : Path.of(p);
    }

    private BootPartition() {
    }

    /** No boot configuration here: the machine was not started from the rtbox image. */
    public static final class NotTheImage extends IOException {
        private static final long serialVersionUID = 1L;

        NotTheImage(Path config, String why) {
            super("this machine was not started from the rtbox image: " + why + " (the image's boot partition,"
                    + " mounted on /boot, has syslinux.cfg with an entry per kernel); the kernel is chosen"
                    + " by this machine's own boot loader");
        }
    }

    /** The configuration as it is now. */
    public static BootConfig read(Path config) throws IOException {
        if (!Files.isRegularFile(config)) {
            throw new NotTheImage(config, "there is no " + config);
        }
        BootConfig c = BootConfig.parse(Files.readString(config, StandardCharsets.ISO_8859_1));
        if (c.labels().isEmpty()) {
            throw new NotTheImage(config, config + " has no boot entry (LABEL)");
        }
        return c;
    }

    /**
     * Makes {@code label} the entry the next boot starts; returns the one it was. Nothing is
     * written when it already is.
     *
     * @throws IllegalArgumentException when the configuration has no such entry (the message names those it has)
     * @throws OsException when the partition cannot be made writable (or read-only again)
     */
    public static String choose(Path config, String label) throws IOException, OsException {
        BootConfig c = read(config);
        String was = c.defaultLabel();
        String text = c.withDefault(label);
        if (label.equals(was)) {
            return was;
        }
        Path dir = config.toAbsolutePath().getParent();
        Mount m = Files.getFileStore(dir).isReadOnly() ? Mount.of(dir) : null;
        if (m != null) {
            m.remount(false);
        }
        try {
            DurableFile.write(config, text.getBytes(StandardCharsets.ISO_8859_1));
        } finally {
            if (m != null) {
                m.remount(true);
            }
        }
        return was;
    }

    /** The image's entry this system was booted with: {@code rtbox.kernel=} on the kernel command line; "" without. */
    public static String booted() {
        try {
            return booted(Procfs.read("/proc/cmdline"));
        } catch (IOException e) {
            return "";
        }
    }

    static String booted(String cmdline) {
        for (String arg : cmdline.trim().split("\\s+")) {
            if (arg.startsWith("rtbox.kernel=")) {
                return arg.substring("rtbox.kernel=".length());
            }
        }
        return "";
    }

    /**
     * Asks init to reboot (busybox's {@code reboot}: init runs its shutdown action, rcK, which
     * stops the appliance with SIGTERM and releases the data partition), and returns at once.
     */
    public static void reboot() throws IOException {
        Path reboot = Path.of("/sbin/reboot");
        new ProcessBuilder(Files.isExecutable(reboot) ? reboot.toString() : "reboot")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** A mount point and the flags it is mounted with, as /proc/self/mounts lists them. */
    record Mount(String point, long flags) {
        /** The mount the folder {@code dir} is on: the longest mount point it is below. */
        static Mount of(Path dir) throws IOException {
            return of(dir.toRealPath().toString(), Procfs.mounts());
        }

        static Mount of(String dir, List<String> mounts) throws IOException {
            Mount best = null;
            for (String line : mounts) {
                String[] f = line.split(" ");
                if (f.length < 4) {
                    continue;
                }
                String point = f[1].replace("\\040", " ");
                boolean below = dir.equals(point) || point.equals("/") || dir.startsWith(point + "/");
                if (below && (best == null || point.length() >= best.point.length())) {
                    best = new Mount(point, flags(f[3]));
                }
            }
            if (best == null) {
                throw new IOException("no mount holds " + dir + " in /proc/self/mounts");
            }
            return best;
        }

        /** mount(2)'s per-mount flags from an options field (ro,nodev,noexec,noatime,...). */
        static long flags(String options) {
            long flags = 0;
            for (String o : options.split(",")) {
                switch (o) {
                    case "ro": flags |= LibC.MS_RDONLY; break;
                    case "nosuid": flags |= LibC.MS_NOSUID; break;
                    case "nodev": flags |= LibC.MS_NODEV; break;
                    case "noexec": flags |= LibC.MS_NOEXEC; break;
                    case "sync": flags |= LibC.MS_SYNCHRONOUS; break;
                    case "noatime": flags |= LibC.MS_NOATIME; break;
                    case "nodiratime": flags |= LibC.MS_NODIRATIME; break;
                    case "relatime": flags |= LibC.MS_RELATIME; break;
                    default: break;
                }
            }
            return flags;
        }

        void remount(boolean readOnly) throws OsException {
            long f = LibC.MS_REMOUNT | (readOnly ? flags | LibC.MS_RDONLY : flags & ~LibC.MS_RDONLY);
            try {
                LibC.mount(null, point, null, new NativeLong(f), null);
            } catch (LastErrorException e) {
                throw Native.failure("mount(" + point + ", MS_REMOUNT" + (readOnly ? "|MS_RDONLY" : "") + ")",
                        e.getErrorCode());
            }
        }
    }
}
