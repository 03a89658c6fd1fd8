package rtbox.trace.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;

import rtbox.api.RtboxException;

/**
 * Where tracefs is, mounting it where it is not (and unmounting it again if rtbox
 * mounted it), and rtbox's private instances in it ({@code instances/rtbox-<pid>}).
 * Instances of rtbox processes that are gone (killed outright) are removed before a new
 * one is made, whether or not a state file recorded them.
 */
final class TraceFs {
    static final Path DEFAULT = Path.of("/sys/kernel/tracing");
    static final String PREFIX = "rtbox-";

    final Path root;
    /** True when this process mounted tracefs at {@link #root}. */
    final boolean mountedHere;

    private TraceFs(Path root, boolean mountedHere) {
        this.root = root;
        this.mountedHere = mountedHere;
    }

    /** The mounted tracefs, or null (from /proc/self/mounts). */
    static Path mounted() {
        try {
            Path found = null;
            for (String line : rtbox.os.Procfs.mounts()) {
                String[] f = line.split(" ");
                if (f.length > 2 && f[2].equals("tracefs")) {
                    Path p = Path.of(f[1].replace("\\040", " "));
                    if (p.equals(DEFAULT)) {
                        return p;
                    }
                    if (found == null) {
                        found = p;
                    }
                }
            }
            return found;
        } catch (IOException e) {
            return null;
        }
    }

    /** tracefs as it is, mounted at /sys/kernel/tracing first when it is not mounted anywhere. */
    static TraceFs open() throws RtboxException {
        Path m = mounted();
        if (m != null) {
            return new TraceFs(m, false);
        }
        if (!Files.isDirectory(DEFAULT)) {
            throw new RtboxException("trace", "this kernel has no tracefs (no " + DEFAULT + "): spikes keep their "
                    + "labels without a culprit");
        }
        try {
            Posix.mount("nodev", DEFAULT.toString(), "tracefs", new NativeLong(0), null);
        } catch (LastErrorException e) {
            int errno = e.getErrorCode();
            throw new RtboxException("trace", "tracefs is not mounted and mounting it at " + DEFAULT + " failed: "
                    + Posix.strerror(errno) + (errno == Posix.EPERM ? " (run as root, or mount it: mount -t tracefs "
                    + "nodev " + DEFAULT + ")" : errno == Posix.ENODEV ? " (this kernel has no tracefs)" : ""));
        }
        return new TraceFs(DEFAULT, true);
    }

    /** Unmounts tracefs if this process mounted it; says why not when it could not. */
    String unmountIfMine() {
        return mountedHere ? unmount(root) : null;
    }

    /** Unmounts; null when done or already gone, else why not (another process still uses it). */
    static String unmount(Path root) {
        try {
            Posix.umount2(root.toString(), 0);
            return null;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == 22 /* EINVAL: not mounted */) {
                return null;
            }
            return "tracefs left mounted at " + root + ": " + Posix.strerror(e.getErrorCode())
                    + (e.getErrorCode() == Posix.EBUSY ? " (in use by another process)" : "");
        }
    }

    Path instances() {
        return root.resolve("instances");
    }

    /** A new instance for this process; an old one of the same name (a run that failed to remove it) is replaced. */
    Path createInstance() throws RtboxException {
        Path dir = instances().resolve(PREFIX + ProcessHandle.current().pid());
        removeInstance(dir);
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            throw new RtboxException("trace", "cannot create the tracefs instance " + dir + ": " + e.getMessage()
                    + (Files.isDirectory(instances()) ? "" : " (this kernel has no tracefs instances)"));
        }
        return dir;
    }

    /** Turns tracing off and removes the instance; false when it is still there. */
    static boolean removeInstance(Path dir) {
        if (!Files.isDirectory(dir)) {
            return true;
        }
        try {
            Files.writeString(dir.resolve("tracing_on"), "0");
        } catch (IOException e) {
            // removing is what matters
        }
        try {
            Files.delete(dir);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes instances {@code rtbox-<pid>} whose process is gone; returns their names. */
    List<String> removeOrphans() {
        List<String> removed = new ArrayList<>();
        if (!Files.isDirectory(instances())) {
            return removed;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(instances(), PREFIX + "*")) {
            for (Path d : dirs) {
                long pid;
                try {
                    pid = Long.parseLong(d.getFileName().toString().substring(PREFIX.length()));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty() && removeInstance(d)) {
                    removed.add(d.getFileName().toString());
                }
            }
        } catch (IOException e) {
            // nothing to clean, or not allowed to look
        }
        return removed;
    }

    static void write(Path file, String value) throws RtboxException {
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            throw new RtboxException("trace", "cannot write '" + value + "' to " + file + ": " + e.getMessage());
        }
    }

    /**
     * A tracefs file's text. Not Files.readString: tracefs files report size 0 and some
     * (events/header_page) give their text in pieces, which it stops after the first of.
     */
    static String text(Path file) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String read(Path file) throws RtboxException {
        try {
            return text(file).trim();
        } catch (IOException e) {
            throw new RtboxException("trace", "cannot read " + file + ": " + e.getMessage());
        }
    }

    /** tracing_cpumask's format: comma-separated 32-bit hex words, most significant first. */
    static String cpuMask(int[] cpus) {
        int max = 0;
        for (int c : cpus) {
            max = Math.max(max, c);
        }
        int[] words = new int[max / 32 + 1];
        for (int c : cpus) {
            words[c / 32] |= 1 << (c % 32);
        }
        StringBuilder b = new StringBuilder();
        for (int w = words.length - 1; w >= 0; w--) {
            b.append(b.length() == 0 ? Integer.toHexString(words[w]) : String.format("%08x", words[w]));
            if (w > 0) {
                b.append(',');
            }
        }
        return b.toString();
    }
}
