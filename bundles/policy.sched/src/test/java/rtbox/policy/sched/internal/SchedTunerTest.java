package rtbox.policy.sched.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.api.PolicyHandle;
import rtbox.api.RtboxException;
import rtbox.os.Sched;

/**
 * The tuner on this kernel (mainline: no SCHED_ISO), against the real
 * sched_rt_runtime_us, which every test puts back in a finally; and the ISO branch
 * against a stand-in /proc/sys/kernel folder.
 */
class SchedTunerTest {
    static final Path RUNTIME = Path.of("/proc/sys/kernel/sched_rt_runtime_us");
    static final Path PERIOD = Path.of("/proc/sys/kernel/sched_rt_period_us");

    @TempDir
    Path dir;
    long runtimeBefore;

    @BeforeEach
    void note() throws Exception {
        runtimeBefore = Sysctl.read(RUNTIME);
        groupBefore = Files.exists(ROOT_GROUP) ? Sysctl.read(ROOT_GROUP) : 0;
    }

    static final Path ROOT_GROUP = Path.of("/sys/fs/cgroup/cpu/cpu.rt_runtime_us");
    long groupBefore;

    @AfterEach
    void restore() throws Exception {
        if (Sysctl.read(RUNTIME) != runtimeBefore) {
            Sysctl.write(RUNTIME, runtimeBefore);
        }
        if (Files.exists(ROOT_GROUP) && Sysctl.read(ROOT_GROUP) != groupBefore) {
            Sysctl.write(ROOT_GROUP, groupBefore);
        }
    }

    private SchedTuner tuner() {
        SchedTuner t = new SchedTuner();
        t.stateFile(dir.resolve("state"));
        return t;
    }

    /*
     * Until issue 19, iso on this kernel ran at FIFO 50 with RT throttling at iso_cpu's share as a
     * stand-in. Throttling stops every RT task for the rest of each period instead of demoting
     * the ISO tasks, so it was a different rule; now the tuner emulates ISO's own rule and leaves
     * throttling alone (rt_runtime_us is its own setting).
     */
    @Test
    void isoOnMainlineIsEmulatedInTheIsoBandAndThrottlingIsLeftAlone() throws Exception {
        SchedTuner t = tuner();
        assertFalse(t.isoAvailable(), "this kernel has no SCHED_ISO");
        try (PolicyHandle h = t.apply(Map.of("policy", "iso", "iso_cpu", "70", "priority", "80"), null)) {
            Map<String, String> c = h.changes();
            assertEquals("iso -> rr/1", c.get("thread.policy"));
            assertEquals(java.util.Optional.of(new rtbox.api.EffectivePolicy(rtbox.api.SchedPolicy.RR, 1)),
                    h.effectivePolicy(), "the runner gets the ISO band as a type");
            assertEquals("emulated ISO (iso_cpu 70 %, iso_period 5000 ms, sampled every 10 ms)", c.get("sched.rule"));
            assertTrue(c.get("note.iso").startsWith("SCHED_ISO is absent on this kernel"), c.get("note.iso"));
            assertTrue(c.get("note.iso").contains("run at SCHED_RR 1 (the ISO band, 1 to 9"), c.get("note.iso"));
            assertTrue(c.get("note.iso").contains("priority 80 is not used, as SCHED_ISO has none"), c.get("note.iso"));
            assertTrue(c.get("note.iso").contains("back when it falls under 63.0 %"), c.get("note.iso"));
            assertFalse(c.containsKey("sched_rt_runtime_us"), "throttling is no longer ISO's stand-in");
            assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
            assertFalse(Files.exists(dir.resolve("state")), "no kernel setting changed, nothing to record");
        }
        assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
    }

    @Test
    void throttlingIsItsOwnSettingAndTheRuleIsRecorded() throws Exception {
        SchedTuner t = tuner();
        long period = Sysctl.read(PERIOD);
        try (PolicyHandle h = t.apply(Map.of("policy", "fifo", "priority", "60", "rt_runtime_us",
                Long.toString(period * 96 / 100)), null)) {
            Map<String, String> c = h.changes();
            assertEquals("fifo -> fifo/60", c.get("thread.policy"));
            assertEquals("FIFO with throttling (sched_rt_runtime_us " + period * 96 / 100 + " of sched_rt_period_us "
                    + period + ")", c.get("sched.rule"));
            assertEquals(period * 96 / 100, Sysctl.read(RUNTIME));
            assertEquals(runtimeBefore + " -> " + period * 96 / 100, c.get("sched_rt_runtime_us"));
            // Recorded before the change, with the original value.
            assertEquals(runtimeBefore, new StateFile(dir.resolve("state")).read().get(RUNTIME));
        }
        assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
        if (Files.exists(ROOT_GROUP)) {
            assertEquals(groupBefore, Sysctl.read(ROOT_GROUP));
        }
        assertFalse(Files.exists(dir.resolve("state")), "state file deleted after a clean restore");
        try (PolicyHandle h = t.apply(Map.of("iso_cpu", "70"), null)) {
            assertTrue(h.changes().get("note.iso").contains("iso_cpu 70 % changes nothing"), h.changes().toString());
            assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
        }
    }

    @Test
    void aLeftOverStateFileIsRestoredAtTheNextStart() throws Exception {
        new StateFile(dir.resolve("state")).record(Map.of(RUNTIME, runtimeBefore));
        Sysctl.write(RUNTIME, 990_000);
        SchedTuner t = tuner();
        t.restoreLeftovers();
        assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
        assertEquals("sched_rt_runtime_us 990000 -> " + runtimeBefore, t.restoredAtStart().get(0));
        assertFalse(Files.exists(dir.resolve("state")));
    }

    @Test
    void isoKernelGetsIsoAndIsoCpu() throws Exception {
        Path k = Files.createDirectories(dir.resolve("kernel"));
        Files.writeString(k.resolve("iso_cpu"), "70\n");
        Files.writeString(k.resolve("iso_period"), "5\n");
        Files.writeString(k.resolve("sched_rt_period_us"), "1000000\n");
        Files.writeString(k.resolve("sched_rt_runtime_us"), "950000\n");
        SchedTuner t = new SchedTuner(k, () -> true, dir.resolve("dma"), null);
        t.stateFile(dir.resolve("state"));
        assertTrue(t.isoAvailable());
        try (PolicyHandle h = t.apply(Map.of("policy", "iso", "iso_cpu", "90"), null)) {
            assertEquals("iso -> iso/0", h.changes().get("thread.policy"));
            assertEquals("native ISO (iso_cpu 90 %)", h.changes().get("sched.rule"));
            assertEquals(new rtbox.api.EffectivePolicy(rtbox.api.SchedPolicy.ISO, 0), h.effectivePolicy().get());
            assertEquals("70 -> 90", h.changes().get("iso_cpu"));
            assertFalse(h.changes().containsKey("note.iso"));
            assertEquals(90, Sysctl.read(k.resolve("iso_cpu")));
            assertEquals(950000, Sysctl.read(k.resolve("sched_rt_runtime_us")), "throttling untouched with real ISO");
        }
        assertEquals(70, Sysctl.read(k.resolve("iso_cpu")));
    }

    @Test
    void cpuDmaLatencyOnlyWhenAskedAndDisclosed() throws Exception {
        Path dma = dir.resolve("dma");
        SchedTuner t = new SchedTuner(Path.of("/proc/sys/kernel"), () -> false, dma, null);
        t.stateFile(dir.resolve("state"));
        try (PolicyHandle h = t.apply(Map.of("policy", "fifo", "priority", "60"), null)) {
            assertEquals("fifo -> fifo/60", h.changes().get("thread.policy"));
            assertFalse(h.changes().containsKey("cpu_dma_latency"));
            assertFalse(Files.exists(dma));
        }
        try (PolicyHandle h = t.apply(Map.of("cpu_dma_latency_us", "258"), null)) {
            assertEquals("not held -> 258 us", h.changes().get("cpu_dma_latency"));
            assertTrue(h.changes().get("note.cpu_dma_latency").contains("held open at 258 us"));
            assertEquals(4, Files.size(dma));
            byte[] b = Files.readAllBytes(dma);
            assertEquals(258, (b[0] & 0xff) | (b[1] & 0xff) << 8);
        }
    }

    @Test
    void slackAndNiceOfTheRunThreadAreSetAndPutBack() throws Exception {
        SchedTuner t = tuner();
        int tid = Sched.gettid();
        long slack = Sched.getTimerSlackNanos();
        int nice = ThreadNice.get(tid);
        try (PolicyHandle h = t.apply(Map.of("timer_slack_ns", "1", "nice", "5"), null)) {
            assertEquals(1, Sched.getTimerSlackNanos());
            assertEquals(5, ThreadNice.get(tid));
            assertTrue(h.changes().get("nice").startsWith(nice + " -> 5"));
        }
        assertEquals(slack, Sched.getTimerSlackNanos());
        assertEquals(nice, ThreadNice.get(tid));
    }

    @Test
    void badSettingsChangeNothing() throws Exception {
        SchedTuner t = tuner();
        RtboxException e = assertThrows(RtboxException.class, () -> t.apply(Map.of("iso_cpu", "150"), null));
        assertEquals("policy sched: iso_cpu 150 is out of range: use 0 to 100", e.getMessage());
        e = assertThrows(RtboxException.class, () -> t.apply(Map.of("isocpu", "70"), null));
        assertTrue(e.getMessage().startsWith("policy sched: unknown parameter isocpu: known are"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> t.apply(Map.of("policy", "deadline"), null));
        assertTrue(e.getMessage().startsWith("unknown policy 'deadline'"), e.getMessage());
        e = assertThrows(RtboxException.class, () -> t.apply(Map.of("policy", "other", "priority", "5"), null));
        assertEquals("priority 5 needs fifo or rr, not other", e.getMessage());
        assertEquals(runtimeBefore, Sysctl.read(RUNTIME));
        assertFalse(Files.exists(dir.resolve("state")));
        // still usable: the failed calls released it
        t.apply(Map.of(), null).close();
    }

    @Test
    void oneRunAtATime() throws Exception {
        SchedTuner t = tuner();
        try (PolicyHandle h = t.apply(Map.of(), null)) {
            RtboxException e = assertThrows(RtboxException.class, () -> t.apply(Map.of(), null));
            assertTrue(e.getMessage().contains("one run at a time"));
        }
    }
}
