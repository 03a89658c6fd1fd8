package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Culprit;
import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.trace.TraceSession;

/**
 * The trace's culprits under the labels: another process's thread is never a JVM pause,
 * a JVM pause never names another process's thread, and without trace coverage the old
 * labels stand.
 */
class CulpritAttributionTest {
    private static final long START = 1_000_000_000_000L;
    private static final Culprit DISTURBER = new Culprit(Culprit.TASK, "disturber", 4242, 4242, "SCHED_FIFO", 99,
            false, 4_900_000);
    private static final Culprit GC_THREAD = new Culprit(Culprit.TASK, "GC Thread#0", 77, 70, "SCHED_OTHER", 0,
            true, 1_500_000);
    private static final Culprit KWORKER = new Culprit(Culprit.TASK, "kworker/1:2", 91, 91, "SCHED_OTHER", 0,
            false, 30_000);
    private static final Culprit IDE = new Culprit(Culprit.IRQ, "ata_piix", 14, -1, "", 0, false, 61_000_000);

    /** A trace that saw {@code culprits} in any window it is asked about (from START on). */
    private static TraceSession trace(List<Culprit> culprits) {
        return new TraceSession() {
            @Override
            public void stop() {
            }

            @Override
            public List<Culprit> culprits(int cpu, long from, long to, int excludeTid) {
                assertEquals(1, cpu);
                assertEquals(123, excludeTid);
                return culprits;
            }

            @Override
            public boolean covers(int cpu, long from, long to) {
                return from >= START;
            }

            @Override
            public List<String> notes() {
                return List.of();
            }

            @Override
            public void close() {
            }
        };
    }

    private static ThreadResult thread(Spike s) {
        Histogram h = new Histogram(1000, new long[10], 0, 100, 10_000, s.latencyNs(), 50_000, 50_000, s.latencyNs(),
                s.latencyNs());
        return new ThreadResult(0, 1, 123, "fifo", 80, 100, 0, h, new CorrectedLatency(100, 50_000, 1, 1, 1, ""),
                List.of(s), 0);
    }

    private static Spike label(Spike s, List<JvmStall> jvm, TraceSession trace) {
        return Attribution.label(thread(s), jvm, List.of(), null, 1_000_000_000L, List.of(), trace, START).get(0);
    }

    @Test
    void anotherProcessHoldingTheCpuIsPreemptionEvenWhenASafepointOverlaps() {
        Spike s = new Spike(0, 500_000_000, 5_000_000, "", "");
        JvmStall safepoint = new JvmStall(497_000_000, 1_000_000, "safepoint", "Cleanup");
        Spike l = label(s, List.of(safepoint), trace(List.of(DISTURBER, GC_THREAD)));
        assertEquals(Attribution.PREEMPTED, l.cause());
        assertTrue(l.detail().startsWith("preempted by disturber (pid 4242, SCHED_FIFO 99) for 4900 us"), l.detail());
        assertEquals(List.of(DISTURBER), l.culprits(), "this JVM's threads are not listed under another's stall");
    }

    @Test
    void aJvmPauseNamesOnlyThisJvmsThreads() {
        Spike s = new Spike(0, 500_000_000, 2_000_000, "", "");
        JvmStall gc = new JvmStall(498_500_000, 1_200_000, "safepoint", "G1CollectFull");
        Spike l = label(s, List.of(gc), trace(List.of(GC_THREAD, KWORKER)));
        assertEquals(Attribution.JVM, l.cause());
        assertEquals(List.of(GC_THREAD), l.culprits());
    }

    @Test
    void otherProcessesUsingTheCpuDuringAGcDoNotMakeItTheirs() {
        // jcmd GC.run: the probe is blocked for 68 ms and wakes as the GC ends; meanwhile other
        // processes ran on its CPU. Still a JVM pause, naming none of them. (The fake trace
        // answers the same culprits for the part after the pause too, so this spike ends with it.)
        Spike s = new Spike(0, 500_000_000, 68_000_000, "", "");
        JvmStall gc = new JvmStall(432_100_000, 67_900_000, "safepoint", "GenCollectFull");
        Culprit other = new Culprit(Culprit.TASK, "java", 29383, 29380, "SCHED_OTHER", 0, false, 39_000_000);
        Spike l = label(s, List.of(gc), trace(List.of(other, GC_THREAD)));
        assertEquals(Attribution.JVM, l.cause());
        assertEquals(List.of(GC_THREAD), l.culprits());
    }

    @Test
    void anInterruptIsNamed() {
        Spike s = new Spike(0, 500_000_000, 62_000_000, "", "");
        Spike l = label(s, List.of(), trace(List.of(IDE, KWORKER)));
        assertEquals(Attribution.INTERRUPT, l.cause());
        assertEquals("IRQ 14 ata_piix 61 ms", l.detail());
    }

    @Test
    void aBusyWorkloadKeepsItsLabelAndGetsItsCulprit() {
        Spike s = new Spike(0, 500_000_000, 62_000_000, "", "");
        JvmStall read = new JvmStall(430_000_000, 80_000_000, "busy", "blockio");
        Spike l = Attribution.label(thread(s), List.of(), List.of(), null, 1_000_000_000L, List.of(read),
                trace(List.of(IDE)), START).get(0);
        assertEquals(Attribution.WORKLOAD, l.cause());
        assertEquals(List.of(IDE), l.culprits());
    }

    @Test
    void aTaskThatCouldNotPreemptAnRtProbeIsALateWakeUpNotPreemption() {
        // Seen in the board's boot test: kworker/0:1H (SCHED_OTHER) on the CPU for 46 ms of a
        // 48 ms spike of a FIFO 99 probe. It cannot preempt that probe: the wake-up was late.
        Spike s = new Spike(0, 500_000_000, 5_000_000, "", "");
        Culprit worker = new Culprit(Culprit.TASK, "kworker/1:1H", 92, 92, "SCHED_OTHER", -20, false, 4_800_000);
        Spike l = label(s, List.of(), trace(List.of(worker)));
        assertEquals(Attribution.LATE_WAKEUP, l.cause());
        assertTrue(l.detail().startsWith("kworker/1:1H (pid 92, nice -20) held the CPU for 4800 us"), l.detail());
        assertTrue(l.detail().contains("could not have preempted the probe (SCHED_FIFO 80)"), l.detail());
        assertEquals(List.of(worker), l.culprits());
        Culprit lowerRt = new Culprit(Culprit.TASK, "irq/14-ata", 93, 93, "SCHED_FIFO", 50, false, 4_900_000);
        assertEquals(Attribution.LATE_WAKEUP, label(s, List.of(), trace(List.of(lowerRt))).cause());
    }

    @Test
    void anIdleCpuMeansTheWakeUpCameLate() {
        Spike s = new Spike(0, 500_000_000, 2_000_000, "", "");
        Spike l = label(s, List.of(), trace(List.of(KWORKER)));
        assertEquals(Attribution.UNEXPLAINED, l.cause());
        assertTrue(l.detail().contains("wake-up itself came late"), l.detail());
        assertEquals(List.of(KWORKER), l.culprits());
    }

    @Test
    void withoutCoverageTheOldLabelsStand() {
        Spike s = new Spike(0, 500_000_000, 2_000_000, "", "");
        JvmStall gc = new JvmStall(498_500_000, 1_200_000, "safepoint", "G1CollectFull");
        Spike l = Attribution.label(thread(s), List.of(gc), List.of(), null, 1_000_000_000L, List.of(),
                trace(List.of(DISTURBER)), START - 1_000_000_000L).get(0);
        assertEquals(Attribution.JVM, l.cause());
        assertTrue(l.culprits().isEmpty());
    }
}
