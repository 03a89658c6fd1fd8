package rtbox.probe.rtc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;

class RtcProbeTest {
    static final RunContext CONTEXT = new RunContext() {
        @Override
        public boolean stopRequested() {
            return false;
        }

        @Override
        public void progress(double fraction) {
        }

        @Override
        public void event(String kind, String detail) {
        }
    };

    @Test
    void rateMustBeAPowerOfTwoFrom2To8192() throws RtboxException {
        assertEquals(1024, RtcProbe.rate(RunParameters.builder().build()));
        assertEquals(8192, RtcProbe.rate(RunParameters.builder().option("rate", "8192").build()));
        for (String bad : new String[] {"1", "3", "1000", "16384", "x"}) {
            RtboxException e = assertThrows(RtboxException.class,
                    () -> RtcProbe.rate(RunParameters.builder().option("rate", bad).build()));
            assertEquals("rate", e.subject());
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }

    @Test
    void noRtcOnThisMachineIsAClearError() {
        assumeFalse(Files.exists(Path.of("/dev/rtc")) || Files.exists(Path.of("/dev/rtc0")), "this machine has an RTC");
        RtboxException e = assertThrows(RtboxException.class,
                () -> new RtcProbe().run(RunParameters.builder().cpus(0).loops(10).build(), CONTEXT));
        assertEquals("/dev/rtc", e.subject());
        assertTrue(e.getMessage().contains("no RTC device"), e.getMessage());
        assertTrue(e.getMessage().contains("/dev/rtc0"), e.getMessage());
    }

    @Test
    void aDeviceThatIsNotAnRtcIsNamed() {
        RtboxException e = assertThrows(RtboxException.class, () -> new RtcProbe()
                .run(RunParameters.builder().cpus(0).loops(10).option("device", "/dev/null").build(), CONTEXT));
        assertEquals("/dev/null", e.subject());
        assertTrue(e.getMessage().contains("not an RTC"), e.getMessage());
        RtboxException missing = assertThrows(RtboxException.class, () -> new RtcProbe()
                .run(RunParameters.builder().cpus(0).option("device", "/dev/nope").build(), CONTEXT));
        assertTrue(missing.getMessage().contains("/dev/nope does not exist"), missing.getMessage());
    }

    @Test
    void oneCpuOnly() {
        RtboxException e = assertThrows(RtboxException.class,
                () -> new RtcProbe().validate(RunParameters.builder().cpus(0, 1).build()));
        assertEquals("cpu", e.subject());
    }
}
