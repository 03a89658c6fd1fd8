package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * What of this machine a plan may need to name, for the self-test reply: its online CPUs (the
 * kernel's list, "0-3") and its block devices (what a blockio load can read). The control room
 * offers them as the choices when a plan asks for them at start (issue 32).
 */
final class MachineParts {
    private MachineParts() {
    }

    /** /sys/devices/system/cpu/online as the kernel writes it, or null when it cannot be read. */
    static String cpusOnline() {
        try {
            return Files.readString(Path.of("/sys/devices/system/cpu/online")).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Whether this process can open it for reading (access(2) says yes to root where open says EPERM). */
    private static boolean opens(Path dev) {
        try (java.nio.channels.SeekableByteChannel c = Files.newByteChannel(dev, java.nio.file.StandardOpenOption.READ)) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Block devices with a size, by name ({@code path}, {@code bytes}, {@code readable} by
     * this process); loop, RAM and zram devices left out: reading them says nothing of the
     * controller's disk.
     */
    static JsonArray blockDevices(Path sysBlock) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(sysBlock)) {
            for (Path p : s) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            return new JsonArray();
        }
        names.sort(null);
        JsonArray out = new JsonArray();
        for (String n : names) {
            if (n.startsWith("loop") || n.startsWith("ram") || n.startsWith("zram")) {
                continue;
            }
            long sectors;
            try {
                sectors = Long.parseLong(Files.readString(sysBlock.resolve(n).resolve("size")).trim());
            } catch (IOException | RuntimeException e) {
                continue;
            }
            if (sectors <= 0) {
                continue;
            }
            Path dev = Path.of("/dev", n);
            JsonObject d = new JsonObject();
            d.addProperty("path", dev.toString());
            d.addProperty("bytes", sectors * 512);
            d.addProperty("readable", opens(dev));
            out.add(d);
        }
        return out;
    }
}
