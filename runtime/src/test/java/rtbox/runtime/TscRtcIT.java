package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `rtbox run tsc` and `rtbox run rtc` through the real appliance. */
class TscRtcIT {
    @TempDir
    Path home;

    @Test
    void tscRunWritesTheReportWithTheClockAndTheSweep() throws Exception {
        Path report = home.resolve("tsc.json");
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "run", "tsc", "-q", "-a", "0", "--warmup", "300ms", "-l", "400",
                    "-o", "from=10", "-o", "to=200", "-o", "step=10", "--report", report.toString());
            assertTrue(r.exitCode() == 0 || r.exitCode() == 1 || r.exitCode() == 3, r.stdout() + r.stderr());
            String json = Files.readString(report);
            assertTrue(json.contains("\"probe\": \"tsc\"") || json.contains("\"probe\":\"tsc\""), json);
            assertTrue(json.contains("TSC (rdtsc) at "), "clock not recorded");
            assertTrue(json.contains("\"cycles\": 400") || json.contains("\"cycles\":400"), "400 waits expected");
            assertTrue(json.contains("tsc_hz"), "calibrated rate not in the report");
        }
    }

    @Test
    void rtcWithoutAnRtcSaysSo() throws Exception {
        assumeFalse(Files.exists(Path.of("/dev/rtc")) || Files.exists(Path.of("/dev/rtc0")), "this machine has an RTC");
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "run", "rtc", "-q", "-a", "0", "-l", "10");
            assertNotEquals(0, r.exitCode());
            String all = r.stdout() + "\n" + r.stderr();
            assertTrue(all.contains("no RTC device"), all);
            assertTrue(all.contains("/dev/rtc0"), all);
        }
    }

    @Test
    void rtcRejectsARateThatIsNotAPowerOfTwo() throws Exception {
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "run", "rtc", "-q", "-o", "rate=1000");
            assertEquals(2, r.exitCode(), r.stdout() + r.stderr());
            assertTrue((r.stdout() + r.stderr()).contains("power of two"), r.stdout() + r.stderr());
        }
    }
}
