package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** {@code rtbox load}: one workload alone, in the real framework with the real bundles. */
class LoadIT {
    @TempDir
    Path home;

    @Test
    void aCountedWorkloadEndsWhenItsCountIsDoneNotAtItsDuration() throws Exception {
        Path json = home.resolve("pipe.json");
        try (Rtbox rtbox = new Rtbox(home)) {
            long t0 = System.nanoTime();
            Rtbox.Result r = rtbox.run(120, "load", "pipe", "mode=rtt", "count=20000", "-D", "90s", "--json", json.toString());
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            // 20000 round trips take well under a second here; the JVM's start a few.
            assertTrue(seconds < 60, "load ran " + seconds + " s: it waited for -D 90s after its count");
            JsonObject f = JsonParser.parseString(Files.readString(json)).getAsJsonObject().getAsJsonObject("figures");
            assertEquals(20000, f.get("round_trips").getAsDouble());
            assertEquals(1, f.get("machine_code_loop").getAsDouble(), "x86: the ends run as machine code");
            assertEquals(0, f.get("errors").getAsDouble());
        }
    }

    @Test
    void anUnknownLoopIsNamed() throws Exception {
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(60, "load", "pipe", "mode=rtt", "loop=asm", "-D", "1s");
            assertEquals(2, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stderr().contains("loop 'asm'"), r.stderr());
        }
    }
}
