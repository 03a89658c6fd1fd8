package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rtbox selftest through the real runtime: the injected 2 ms disturbance every 100 ms
 * is seen about 50 times in 5 s and attributed to the disturber, apart from this VM's
 * own noise; then a disturber in another process (SCHED_FIFO 99, 5 ms every 500 ms) is
 * named by the kernel trace, with its process id, for at least 95 % of its stalls, with
 * a median within 10 % of 5 ms, and never called a JVM pause.
 */
class SelftestIT {
    @TempDir
    Path home;

    @Test
    void injectedDisturbanceIsSeenAndAttributed() throws Exception {
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "selftest", "-D", "5s");
            if (r.exitCode() != 0 && r.stdout().contains("of the foreign disturber's") && r.stdout().contains(
                    "switches were missing from the kernel's trace")) {
                // This VM's kernel leaves some switches out of its trace (its agent's threads); when
                // a stall falls in such a gap, one more try, and that one must pass.
                System.err.println("SelftestIT: first try:\n" + r.stdout());
                r = rtbox.run(120, "selftest", "-D", "5s");
            }
            assertEquals(0, r.exitCode(), r.stdout() + "\n" + r.stderr());
            Matcher m = Pattern.compile("seen: (\\d+) spikes attributed to the disturber").matcher(r.stdout());
            assertTrue(m.find(), r.stdout());
            int seen = Integer.parseInt(m.group(1));
            assertTrue(seen >= 45 && seen <= 55, "saw " + seen + " of 50 injected");
            assertTrue(r.stdout().contains("machine's own noise"), r.stdout());
            // The foreign disturber (another process, FIFO 99, 5 ms every 500 ms): named by the kernel trace.
            Matcher f = Pattern.compile("foreign: (\\d+) of (\\d+) stalls named as disturber \\(pid \\d+\\) by the kernel"
                    + " trace, median (\\d+) us \\(injected 5000 us\\); (\\d+) labelled JVM pause").matcher(r.stdout());
            assertTrue(f.find(), r.stdout());
            int named = Integer.parseInt(f.group(1)), stalls = Integer.parseInt(f.group(2));
            assertTrue(stalls >= 8 && named * 100 >= stalls * 95, r.stdout());
            assertTrue(Math.abs(Integer.parseInt(f.group(3)) - 5000) <= 500, r.stdout());
            assertEquals(0, Integer.parseInt(f.group(4)), r.stdout());
        }
    }
}
