package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/** What the readiness reply offers a plan: disks with a size (loop, RAM, zram and empty ones left out), the CPUs. */
class MachinePartsTest {
    @TempDir
    Path sys;

    @Test
    void disksWithASizeOnly() throws Exception {
        for (String[] d : new String[][] {{"loop0", "2048"}, {"zram0", "8"}, {"sr0", "0"}, {"vdb", "4096"}, {"vda", "2048"}}) {
            Files.createDirectories(sys.resolve(d[0]));
            Files.writeString(sys.resolve(d[0]).resolve("size"), d[1] + "\n");
        }
        Files.createDirectories(sys.resolve("ram0")); // no size file: skipped
        JsonArray a = MachineParts.blockDevices(sys);
        assertEquals(2, a.size(), a.toString());
        JsonObject first = a.get(0).getAsJsonObject();
        assertEquals("/dev/vda", first.get("path").getAsString());
        assertEquals(2048L * 512, first.get("bytes").getAsLong());
        assertTrue(first.has("readable"));
        assertEquals("/dev/vdb", a.get(1).getAsJsonObject().get("path").getAsString());
        assertEquals(0, MachineParts.blockDevices(sys.resolve("missing")).size());
    }

    @Test
    void cpusAsTheKernelListsThem() {
        assertTrue(MachineParts.cpusOnline().matches("[0-9][0-9,-]*"), MachineParts.cpusOnline());
    }
}
