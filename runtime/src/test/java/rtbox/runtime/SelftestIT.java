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
 * own noise.
 */
class SelftestIT {
    @TempDir
    Path home;

    @Test
    void injectedDisturbanceIsSeenAndAttributed() throws Exception {
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "selftest", "-D", "5s");
            assertEquals(0, r.exitCode(), r.stdout() + "\n" + r.stderr());
            Matcher m = Pattern.compile("seen: (\\d+) spikes attributed to the disturber").matcher(r.stdout());
            assertTrue(m.find(), r.stdout());
            int seen = Integer.parseInt(m.group(1));
            assertTrue(seen >= 45 && seen <= 55, "saw " + seen + " of 50 injected");
            assertTrue(r.stdout().contains("machine's own noise"), r.stdout());
        }
    }
}
