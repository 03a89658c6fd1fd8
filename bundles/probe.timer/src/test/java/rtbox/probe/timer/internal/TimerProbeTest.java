package rtbox.probe.timer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.ThreadResult;

class TimerProbeTest {
    private static final RunContext CONTEXT = new RunContext() {
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

    private final TimerProbe probe = new TimerProbe();

    private static String subjectOf(RunParameters p) {
        return assertThrows(RtboxException.class, () -> new TimerProbe().validate(p)).subject();
    }

    @Test
    void badValuesAreNamed() {
        assertEquals("priority", subjectOf(RunParameters.builder().policy(SchedPolicy.FIFO).priority(100).build()));
        assertEquals("priority", subjectOf(RunParameters.builder().policy(SchedPolicy.OTHER).priority(5).build()));
        assertEquals("interval", subjectOf(RunParameters.builder().intervalUs(0).build()));
        assertEquals("duration", subjectOf(RunParameters.builder().durationNs(-1).build()));
        assertEquals("cpu", subjectOf(RunParameters.builder().cpus(4096).build()));
        assertEquals("histogram", subjectOf(RunParameters.builder().histogramLimitUs(0).build()));
        RtboxException e = assertThrows(RtboxException.class,
                () -> probe.validate(RunParameters.builder().cpus(4096).build()));
        assertTrue(e.getMessage().contains("CPU 4096 does not exist"), e.getMessage());
    }

    @Test
    void loopCountBoundsTheRunAndTheHistogramAddsUp() throws RtboxException {
        RunParameters p = RunParameters.builder().intervalUs(1000).loops(300).warmupNs(200_000_000).cpus(0).build();
        ProbeResult r = probe.run(p, CONTEXT);
        assertTrue(r.complete());
        ThreadResult t = r.threads().get(0);
        assertEquals(300, t.cycles());
        assertEquals(t.cycles(), t.latency().total());
        assertTrue(t.latency().minNs() > 0, "a wake-up cannot be on time to the nanosecond");
        assertTrue(t.latency().minNs() <= t.latency().p50Ns() && t.latency().p50Ns() <= t.latency().maxNs());
        assertEquals(0, t.cpu());
        assertTrue(t.corrected().samples() >= t.cycles());
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(th -> th.getName().startsWith("rtbox-timer")),
                "a measuring thread outlived the run");
    }
}
