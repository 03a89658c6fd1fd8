package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.api.result.SystemInfo;
import rtbox.core.RtThrottling;

class SystemInfoTscTest {
    @Test
    void recordsTheClockItsRateAndTheRealThrottlingSettings() throws Exception {
        SystemInfo info = SystemInfoCollector.collect();
        assertEquals("TSC (rdtsc)", info.get("tsc_clock"));
        assertTrue(Double.parseDouble(info.get("tsc_hz")) > 1e8, info.get("tsc_hz"));
        assertTrue(info.get("tsc_flags").contains("tsc"), info.get("tsc_flags"));
        assertTrue(!info.get("tsc_invariant").isEmpty());
        // A sysctl read in pieces came back as its first digit ("9" for 950000).
        assertEquals(rtbox.os.Procfs.kernel("sched_rt_runtime_us"), info.get("sched_rt_runtime_us"));
        assertTrue(info.get("sched_rt_runtime_us").length() > 1 || info.get("sched_rt_runtime_us").equals("0"),
                info.get("sched_rt_runtime_us"));
    }

    /** The firmware image a run ran on (issue 35: the regression page selects runs by it), from image/build.sh's manifest. */
    @Test
    void namesTheImageBuildFromItsManifestAndNothingOffTheImage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path m = dir.resolve("image-manifest");
        java.nio.file.Files.writeString(m, "RTBOX_IMAGE_BUILD=20261206T120000Z\nRTBOX_IMAGE_GIT=886a312\nKERNEL=6.1.0-28-686-pae\n");
        assertEquals("20261206T120000Z (git 886a312)", SystemInfoCollector.image(m));
        assertEquals("", SystemInfoCollector.image(dir.resolve("missing")));
    }
}
