package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * The kernel trace through the real runtime: a forced full GC during a run (jcmd
 * GC.run) is a JVM pause that names no thread of another process, and the run's tracefs
 * instance (instances/rtbox-PID) is gone after a run, after a stop (SIGTERM) and, after a
 * SIGKILL, at the next start. This VM is root with tracefs; elsewhere the run says there
 * is no kernel trace, which is checked instead.
 */
class KernelTraceIT {
    @TempDir
    Path home;

    private static final Path TRACEFS = Path.of("/sys/kernel/tracing");

    private static Path instance(long pid) {
        return TRACEFS.resolve("instances/rtbox-" + pid);
    }

    private static boolean canTrace() {
        return Files.isDirectory(TRACEFS) && "root".equals(System.getProperty("user.name"));
    }

    private static boolean awaitInstance(long pid, long millis) throws InterruptedException {
        return Await.within(millis, () -> Files.isDirectory(instance(pid)));
    }

    @Test
    void aForcedGcIsAJvmPauseNamingOnlyThisJvmAndTheInstanceIsGoneAfterTheRun() throws Exception {
        Path report = home.resolve("report.json");
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.start("run", "timer", "-D", "6s", "-a", "1", "-p", "80", "--policy", "fifo", "-i", "1000", "-q",
                    "--report", report.toString());
            long pid = rtbox.pid();
            if (canTrace()) {
                assertTrue(awaitInstance(pid, 20_000), "the run's instance appears");
            }
            Thread.sleep(4000); // into the measurement (warm-up 1 s)
            Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true).start();
            assertTrue(jcmd.waitFor(30, TimeUnit.SECONDS));
            String jcmdOut = new String(jcmd.getInputStream().readAllBytes());
            assertEquals(0, jcmd.exitValue(), jcmdOut);
            Rtbox.Result r = rtbox.awaitExit(60);
            assertFalse(Files.exists(instance(pid)), "instance removed at the end of the run");
            JsonObject rep = JsonParser.parseString(Files.readString(report)).getAsJsonObject();
            List<String> notes = new ArrayList<>();
            rep.getAsJsonObject("result").getAsJsonArray("notes").forEach(n -> notes.add(n.getAsString()));
            if (!canTrace()) {
                assertTrue(notes.stream().anyMatch(n -> n.startsWith("no kernel trace")), notes.toString());
                return;
            }
            assertTrue(notes.stream().anyMatch(n -> n.startsWith("kernel trace on CPU 1")), notes.toString());
            int jvmPauses = 0;
            for (JsonElement t : rep.getAsJsonObject("result").getAsJsonArray("threads")) {
                for (JsonElement e : t.getAsJsonObject().getAsJsonArray("spikes")) {
                    JsonObject s = e.getAsJsonObject();
                    JsonArray culprits = s.getAsJsonArray("culprits");
                    if (!"JVM pause".equals(s.get("cause").getAsString())) {
                        continue;
                    }
                    jvmPauses++;
                    for (JsonElement c : culprits) {
                        assertTrue(c.getAsJsonObject().get("ownJvm").getAsBoolean(),
                                "a JVM pause names only this JVM's threads: " + s);
                    }
                }
            }
            assertTrue(jvmPauses >= 1, "the forced GC is a JVM pause: " + r.stdout());
        }
    }

    @Test
    void theInstanceIsGoneAfterAStopAndAfterAKillAtTheNextStart() throws Exception {
        if (!canTrace()) {
            return;
        }
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.start("run", "timer", "-D", "60s", "-a", "1", "-q");
            long pid = rtbox.pid();
            assertTrue(awaitInstance(pid, 20_000), "the run's instance appears");
            rtbox.terminate();
            assertFalse(Files.exists(instance(pid)), "SIGTERM: the instance is removed on the way out");
        }
        long killed;
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.start("run", "timer", "-D", "60s", "-a", "1", "-q");
            killed = rtbox.pid();
            assertTrue(awaitInstance(killed, 20_000), "the run's instance appears");
            rtbox.close(); // SIGKILL: nothing of rtbox runs any more
            assertTrue(Files.isDirectory(instance(killed)), "a killed run leaves its instance");
            assertTrue(Files.exists(home.resolve("data/trace.state")), "and the state file naming it");
        }
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(60, "run", "timer", "-D", "1s", "-a", "1", "-q");
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            assertFalse(Files.exists(instance(killed)), "the next start removed the killed run's instance");
            assertFalse(Files.exists(home.resolve("data/trace.state")), "and its state file");
        }
    }
}
