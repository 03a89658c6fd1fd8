package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** Boots the real framework with the real bundles and measures for 2 s, as a user would. */
class TimerRunIT {
    @TempDir
    Path home;

    @Test
    void twoSecondsAtOneMillisecondGiveTwoThousandCycles() throws Exception {
        Path json = home.resolve("out.json");
        Path hist = home.resolve("hist.txt");
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "run", "timer", "-p", "80", "-i", "1000", "-D", "2s", "-a", "0",
                    "--warmup", "500ms", "-q", "--json", json.toString(), "--histfile", hist.toString(),
                    "--max-latency", "1000000", "--jvm-stall-budget", "1000000");
            // Both limits are out of reach on purpose: this test checks the counting and
            // the cyclictest output, not the machine. A 9 ms safepoint on a loaded CI
            // machine is rightly INCONCLUSIVE (exit 3), and was, once.
            assertEquals(0, r.exitCode(), r.stdout() + "\n" + r.stderr());
            assertTrue(r.stdout().contains("T: 0 ("), r.stdout());
            assertTrue(r.stderr().lines().anyMatch(l -> l.startsWith("PASS")), "-q: the verdict on stderr: " + r.stderr());

            JsonObject doc = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
            for (String key : new String[] {"file_version", "sysinfo", "num_threads", "thread"}) {
                assertTrue(doc.has(key), "cyclictest key " + key + " missing");
            }
            JsonObject t = doc.getAsJsonObject("thread").getAsJsonObject("0");
            long cycles = t.get("cycles").getAsLong();
            JsonObject rt = doc.getAsJsonObject("rtbox").getAsJsonObject("result").getAsJsonArray("threads")
                    .get(0).getAsJsonObject();
            long missed = rt.get("missedDeadlines").getAsLong();
            // Every period is either a cycle or a missed deadline.
            assertTrue(Math.abs(cycles + missed - 2000) <= 3, "cycles " + cycles + " + missed " + missed);
            assertTrue(t.get("min").getAsLong() >= 0 && rt.getAsJsonObject("latency").get("minNs").getAsLong() > 0);
            long sum = 0;
            for (Map.Entry<String, com.google.gson.JsonElement> e : t.getAsJsonObject("histogram").entrySet()) {
                sum += e.getValue().getAsLong();
            }
            long overflows = rt.getAsJsonObject("latency").get("overflows").getAsLong();
            assertEquals(cycles, sum + overflows, "histogram + overflows must add up to cycles");
            assertEquals(0, t.get("cpu").getAsInt(), "thread pinned to CPU 0");
            assertTrue(doc.getAsJsonObject("rtbox").getAsJsonObject("system").getAsJsonObject("values")
                    .get("jvm_flags").getAsString().contains("UseSerialGC"), "system info lacks the JVM flags");
            assertTrue(Files.readString(hist).contains("# Max Latencies:"));
        }
    }
}
