package rtbox.probe.tsc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RtThrottling;
import rtbox.os.Sched;

class TscProbeTest {
    private static final Path RUNTIME = Path.of("/proc/sys/kernel/sched_rt_runtime_us");
    private static final Path PERIOD = Path.of("/proc/sys/kernel/sched_rt_period_us");

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

    /**
     * Writes a sched sysctl only when it differs, retrying a while: the kernel answers
     * EBUSY while it cannot yet re-validate the RT/deadline bandwidth.
     */
    static void setting(Path file, String value) throws Exception {
        java.io.IOException last = null;
        for (int i = 0; i < 50; i++) {
            if (Files.readString(file).trim().equals(value)) {
                return;
            }
            try {
                Files.writeString(file, value);
                return;
            } catch (java.io.IOException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new java.io.IOException("could not set " + file + " to " + value, last);
    }

    private static int lastCpu() {
        return Sched.configuredCpus() - 1;
    }

    @Test
    void sweepSteps() throws RtboxException {
        Sweep s = Sweep.of(RunParameters.builder().build());
        assertEquals(1000, s.waits());
        assertEquals(5_005_000_000L, s.sweepNs());
        assertEquals(20, s.next(10));
        assertEquals(10, s.next(10_000));
        Sweep t = Sweep.of(RunParameters.builder().option("from", "100").option("to", "105").option("step", "2").build());
        assertEquals(3, t.waits());
        assertEquals(100, t.next(104));
    }

    @Test
    void badOptionsAreNamed() {
        TscProbe probe = new TscProbe();
        RtboxException e = assertThrows(RtboxException.class,
                () -> probe.validate(RunParameters.builder().option("step", "0").build()));
        assertEquals("step", e.subject());
        e = assertThrows(RtboxException.class,
                () -> probe.validate(RunParameters.builder().option("from", "50").option("to", "20").build()));
        assertEquals("to", e.subject());
        assertTrue(e.getMessage().contains("to=20"), e.getMessage());
        e = assertThrows(RtboxException.class,
                () -> probe.validate(RunParameters.builder().option("from", "ten").build()));
        assertEquals("from", e.subject());
        e = assertThrows(RtboxException.class,
                () -> probe.validate(RunParameters.builder().policy(SchedPolicy.FIFO).priority(0).build()));
        assertEquals("priority", e.subject());
    }

    @Test
    void shortRunAtSchedOtherYieldsTheExpectedSamples() throws RtboxException {
        RunParameters p = RunParameters.builder().cpus(lastCpu()).loops(300).warmupNs(300_000_000L)
                .option("from", "10").option("to", "100").option("step", "10").build();
        ProbeResult r = new TscProbe().run(p, CONTEXT);
        ThreadResult t = r.threads().get(0);
        assertEquals(300, t.cycles());
        assertEquals(300, t.latency().samples());
        assertEquals(300, t.latency().total());
        assertEquals(300.0, r.figures().get("waits"));
        assertTrue(r.clock().startsWith("TSC (rdtsc)"), r.clock());
        assertTrue(t.latency().minNs() >= 0);
        assertTrue(t.latency().avgNs() < 1_000_000, "average overshoot " + t.latency().avgNs() + " ns");
        // 300 waits of 10..100 us take at least 300 * 10 us.
        assertTrue(r.durationNs() >= 16_500_000L, "ran " + r.durationNs() + " ns");
        System.out.printf("[tsc-probe] other: min %d ns avg %.0f ns max %d ns%n", t.latency().minNs(),
                t.latency().avgNs(), t.latency().maxNs());
    }

    /**
     * With throttling at its default and the probe at FIFO for over 2 s on one CPU, the
     * ~50 ms stalls appear and are labelled. A SCHED_OTHER spinner on the same CPU makes
     * sure there is fair work to run while the RT task is throttled (kernels with the
     * fair deadline server only stop RT tasks for waiting fair ones).
     */
    @Test
    void fifoBusyLoopIsStalledByRtThrottlingAndSaysSo() throws Exception {
        assumeTrue(Files.isWritable(RUNTIME), "needs root to set sched_rt_runtime_us");
        String oldRuntime = Files.readString(RUNTIME).trim();
        String oldPeriod = Files.readString(PERIOD).trim();
        int cpu = lastCpu();
        Thread hog = new Thread(() -> {
            try {
                Sched.setAffinity(0, cpu);
            } catch (Exception e) {
                return;
            }
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
        }, "throttling-test-hog");
        hog.setDaemon(true);
        try {
            setting(PERIOD, "1000000");
            setting(RUNTIME, "950000");
            hog.start();
            RunParameters p = RunParameters.builder().cpus(cpu).policy(SchedPolicy.FIFO).priority(99)
                    .durationNs(2_600_000_000L).warmupNs(300_000_000L).build();
            ProbeResult r = new TscProbe().run(p, CONTEXT);
            List<Spike> throttled = r.threads().get(0).spikes().stream()
                    .filter(s -> RtThrottling.CAUSE.equals(s.cause())).collect(Collectors.toList());
            System.out.println("[tsc-probe] fifo with throttling: " + r.threads().get(0).latency() + "\n  spikes "
                    + r.threads().get(0).spikes().stream().filter(s -> s.latencyNs() > 1_000_000)
                    .map(s -> s.offsetNs() / 1_000_000 + "ms:" + s.latencyNs() / 1000 + "us:" + s.cause())
                    .collect(Collectors.joining(", ")) + "\n  notes " + r.notes());
            assertTrue(throttled.size() >= 2, "expected ~50 ms stalls labelled RT throttling, spikes: "
                    + r.threads().get(0).spikes());
            // The effective runtime: the root RT cgroup may hold tasks to less than the sysctl.
            RtThrottling.Settings effective = RtThrottling.Settings.read();
            for (Spike s : throttled) {
                assertTrue(s.latencyNs() > effective.stallNs() / 2 && s.latencyNs() < effective.stallNs() * 8 / 5,
                        s + " vs a stall of " + effective.stallNs() + " ns");
                assertTrue(s.detail().contains(Long.toString(effective.runtimeUs())), s.detail());
            }
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("labelled RT throttling")), r.notes().toString());
        } finally {
            hog.interrupt();
            hog.join(1000);
            setting(RUNTIME, oldRuntime);
            setting(PERIOD, oldPeriod);
            assertEquals(oldRuntime, Files.readString(RUNTIME).trim());
            assertEquals(oldPeriod, Files.readString(PERIOD).trim());
        }
    }
}
