package rtbox.probe.graph.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.ThreadResult;

/**
 * The graph on this machine, for real: a 10 ms period (longer than this VM's host stalls,
 * which reach 2 ms) at SCHED_FIFO on the last CPU, so that the other helpers' builds do
 * not count as load. Behaviour is asserted, not timing: at 50 % no xrun that a stall of the
 * CPU itself does not explain, the load measured as asked (+/- 3 points) on an idle
 * machine, exactly one xrun per injected stall, nothing left behind.
 */
class GraphProbeTest {
    private static final int CPU = Math.max(0, rtbox.os.Sched.configuredCpus() - 1);
    /** The other CPUs' busy share under which this machine counts as idle for the load's +/- 3 points. */
    private static final double IDLE_ENOUGH = 0.3;

    /** Collects the events a run reports. */
    private static final class Events implements RunContext {
        final List<String[]> events = new ArrayList<>();
        final List<Long> times = new ArrayList<>();

        @Override
        public boolean stopRequested() {
            return false;
        }

        @Override
        public void progress(double fraction) {
        }

        @Override
        public void event(String kind, String detail) {
            event(System.nanoTime(), kind, detail);
        }

        @Override
        public void event(long nanoTime, String kind, String detail) {
            times.add(nanoTime);
            events.add(new String[] {kind, detail});
        }
    }

    private static RunParameters.Builder graph(String ends, String load) {
        return RunParameters.builder().intervalUs(10_000).cpus(CPU).policy(SchedPolicy.FIFO).priority(70)
                .warmupNs(1_000_000_000L).durationNs(3_000_000_000L).histogramLimitUs(20_000)
                .option("ends", ends).option("load", load);
    }

    private static String subjectOf(RunParameters p) {
        return assertThrows(RtboxException.class, () -> new GraphProbe().validate(p)).subject();
    }

    @Test
    void badValuesAreNamed() {
        assertEquals("clients", subjectOf(graph("threads", "50").option("clients", "0").build()));
        assertEquals("load", subjectOf(graph("threads", "99").build()));
        assertEquals("load", subjectOf(graph("threads", "half").build()));
        assertEquals("ends", subjectOf(graph("fibres", "50").build()));
        assertEquals("work", subjectOf(graph("threads", "50").option("work", "100us").build()));
        assertEquals("rate", subjectOf(graph("threads", "50").option("frames", "64").build()));
        assertEquals("interval", subjectOf(graph("threads", "50").intervalUs(10).build()));
        assertEquals("cpu", subjectOf(graph("threads", "50").cpus(0, 1).build()));
        assertEquals("colour", subjectOf(graph("threads", "50").option("colour", "red").build()));
        RtboxException e = assertThrows(RtboxException.class,
                () -> new GraphProbe().validate(graph("threads", "50").option("frames", "64").option("rate", "48000")
                        .option("load", "100").build()));
        assertTrue(e.getMessage().contains("load 100 % is out of range"), e.getMessage());
    }

    /** There is no /dev/rtc here: clock=rtc is refused naming the device and what to use instead. */
    @Test
    void withoutAnRtcTheRtcClockIsRefusedByName() {
        assumeTrue(Files.notExists(Path.of("/dev/rtc")) && Files.notExists(Path.of("/dev/rtc0")),
                "this machine has an RTC: the refusal is not what happens here");
        RtboxException e = assertThrows(RtboxException.class,
                () -> new GraphProbe().validate(graph("threads", "50").option("clock", "rtc").build()));
        assertEquals("/dev/rtc", e.subject());
        assertTrue(e.getMessage().contains("neither /dev/rtc nor /dev/rtc0 exists") && e.getMessage().contains(
                "clock=timer"), e.getMessage());
    }

    @Test
    void halfLoadInThreadsMakesNoXrunAndMeasuresTheLoadAsked() throws Exception {
        checkHalfLoad("threads");
    }

    @Test
    void halfLoadInProcessesMakesNoXrunAndMeasuresTheLoadAsked() throws Exception {
        checkHalfLoad("processes");
    }

    /**
     * The half-load run, with the CPU watched from above the graph. The DSP load is checked
     * only on an idle machine (the spin's CPU cost is held by the WorkKeeper, but a busy
     * neighbour also steals wall time from this vCPU). Every xrun must be explained by a
     * stall of the CPU itself: a thread at FIFO 80 on the graph's CPU (above the graph's 70,
     * so the graph cannot delay it) woke late in the xrun's cycle, so something above the
     * graph held the CPU (the host, an interrupt, or a JVM safepoint holding both Java
     * threads), or by the CPU itself running slow (the probe labels an xrun in a window in
     * which a spin cost 1.25x what the work was set for: the host ran this vCPU slower, and
     * the keeper catches up a window later). Such xruns are printed and allowed; any other
     * fails the test: the kernel's scheduling of the graph made it.
     */
    private static void checkHalfLoad(String ends) throws Exception {
        long[] before = otherCpus();
        Events events = new Events();
        ProbeResult r;
        long unexplained = 0;
        String unexplainedText;
        try (CpuWatch watch = new CpuWatch(CPU)) {
            r = new GraphProbe().run(graph(ends, "50").build(), events);
            watch.stop();
            StringBuilder told = new StringBuilder();
            for (int i = 0; i < events.events.size(); i++) {
                if (!events.events.get(i)[0].equals("xrun")) {
                    continue;
                }
                long end = events.times.get(i);
                String stall = watch.stallIn(end - 10_000_000L, end);
                String detail = events.events.get(i)[1];
                boolean slow = detail.contains("(the CPU ran slow");
                if (stall == null && !slow) {
                    unexplained++;
                }
                told.append("\n  xrun at ").append(end).append(": ").append(detail)
                        .append(stall != null ? " (CPU " + CPU + " stalled: " + stall + ")" : slow ? "" : " (unexplained)");
            }
            System.out.println("graph " + ends + " at 50 %: " + r.figures() + told);
            unexplainedText = "xruns that no stall of CPU " + CPU + " explains: " + told + " " + r.figures() + " "
                    + r.notes();
        }
        long[] after = otherCpus();
        double othersBusy = (after[0] - before[0]) / (double) Math.max(1, after[1] - before[1]);
        assertTrue(r.complete(), r.notes().toString());
        double cycles = r.figures().get("cycles");
        ThreadResult t = r.threads().get(0);
        assertEquals((long) cycles, t.latency().samples());
        assertEquals((long) (double) r.figures().get("xruns"), t.missedDeadlines());
        assertTrue(r.figures().get("dsp_load_max_pct") >= r.figures().get("dsp_load_pct"));
        assertEquals(r.figures().get("delay_max_us"), t.latency().maxNs() / 1000.0);
        assertEquals("fifo", t.policy());
        assertEquals(ends.equals("processes") ? 1.0 : 0.0, r.figures().get("processes"));
        assertTrue(r.figures().get("work_adjustments") >= 5, "the keeper held the work: " + r.figures());
        assertNothingLeft();
        // Unexplained xruns fail the test only on an idle machine, as the load check below: a CI run
        // with the build on the other vCPU had two (677 and 82 us late) that the watcher at FIFO 80 did
        // not see, so "no stall of the CPU" is not proven there. They are printed either way.
        if (othersBusy < IDLE_ENOUGH) {
            assertEquals(0, unexplained, unexplainedText);
        }
        // "On an idle CPU": a busy neighbour vCPU takes wall time from this one (the host's), which
        // the graph time includes; the work's CPU time is held whatever the neighbour does.
        assumeTrue(othersBusy < IDLE_ENOUGH, String.format(java.util.Locale.ROOT, "not an idle machine: the other "
                + "CPUs were %.0f %% busy during the run, so the load figure proves nothing here: %s",
                100 * othersBusy, r.figures()));
        assertTrue(cycles + r.figures().get("lost_periods") >= 290 && cycles <= 301, "3 s at 10 ms: " + r.figures());
        double load = r.figures().get("dsp_load_pct");
        assertTrue(Math.abs(load - 50) <= 3, "DSP load " + load + " % where 50 % was asked: " + r.figures() + " "
                + r.notes());
        if (r.figures().get("xruns") == 0) {
            assertEquals(10_000, r.figures().get("period_achieved_us"), 200);
        }
    }

    /**
     * A thread at SCHED_FIFO 80 on the graph's CPU that sleeps 2 ms at a time and keeps every
     * wake-up over 500 us late: the CPU was not the graph's to lose then. Its own cost on the
     * graph's CPU is a few microseconds every 2 ms (under 0.3 % of the load).
     */
    private static final class CpuWatch implements AutoCloseable {
        private static final long PERIOD_NS = 2_000_000, LATE_NS = 500_000;
        private final long[] from = new long[4096], late = new long[4096];
        private volatile int n;
        private volatile boolean stop;
        private final Thread thread;

        CpuWatch(int cpu) {
            thread = new Thread(() -> {
                try {
                    rtbox.os.Sched.setAffinity(0, cpu);
                    rtbox.os.Sched.setScheduler(0, SchedPolicy.FIFO, 80);
                } catch (rtbox.os.OsException e) {
                    throw new IllegalStateException(e);
                }
                rtbox.os.MonotonicClock clock = new rtbox.os.MonotonicClock();
                long next = System.nanoTime() + PERIOD_NS;
                while (!stop) {
                    clock.sleepUntil(next);
                    long now = System.nanoTime();
                    if (now - next > LATE_NS && n < from.length) {
                        from[n] = next;
                        late[n] = now - next;
                        n++;
                    }
                    next = now + PERIOD_NS;
                }
            }, "graph-test-cpu-watch");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(2000);
        }

        /** A stall that overlapped [start, end), or null. */
        String stallIn(long start, long end) {
            for (int i = 0; i < n; i++) {
                if (from[i] < end && from[i] + late[i] > start) {
                    return String.format(java.util.Locale.ROOT, "a FIFO 80 thread woke %.1f ms late", late[i] / 1e6);
                }
            }
            return null;
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }

    /**
     * A stall of 12 ms (over a 10 ms period) injected every 20th cycle: each makes its cycle
     * finish after the next period began, so one xrun per stall, each an event (and any other
     * one explained by a slow CPU).
     */
    @Test
    void eachInjectedStallOverAPeriodIsOneXrun() throws RtboxException {
        Events events = new Events();
        // 20 % load: 2 ms of graph, so that only the stalls make cycles over the period.
        ProbeResult r = new GraphProbe().run(graph("threads", "20").option("stall", "12ms")
                .option("stall_every", "20").durationNs(2_500_000_000L).build(), events);
        double stalls = r.figures().get("stalls_injected");
        double xrunCount = r.figures().get("xruns");
        assertTrue(stalls >= 5, r.figures().toString());
        // Every stall is an xrun. One more may come from the host (this VM stalls for
        // milliseconds now and then: a CI run had 12 for 11 stalls), and then the probe must
        // have seen that the CPU was slow.
        assertTrue(xrunCount >= stalls && xrunCount - stalls <= r.figures().get("xruns_cpu_slow"),
                r.figures().toString());
        assertEquals((long) xrunCount, r.threads().get(0).missedDeadlines());
        long xrunEvents = events.events.stream().filter(e -> e[0].equals("xrun")).count();
        assertEquals((long) xrunCount, xrunEvents);
        // A 12 ms stall plus 2 ms of graph ends 4 ms into the next period, which is lost.
        assertTrue(r.figures().get("lost_periods") >= stalls, r.figures().toString());
        List<String> xruns = events.events.stream().filter(e -> e[0].equals("xrun")).map(e -> e[1]).toList();
        assertTrue(xruns.stream().allMatch(e -> e.startsWith("cycle finished") && e.contains("after its period ended")),
                xruns.toString());
        // An xrun may also say that the CPU ran slow then (a fact of its window, seen here at the
        // warm-up's end): it is still one xrun per stall.
        assertNothingLeft();
    }

    /** The other CPUs' busy and total jiffies so far, from /proc/stat. */
    private static long[] otherCpus() throws java.io.IOException {
        long busy = 0, total = 0;
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
            if (line.matches("cpu\\d+ .*") && !line.startsWith("cpu" + CPU + " ")) {
                String[] f = line.trim().split("\\s+");
                long sum = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) {
                    sum += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
                busy += sum - idle;
                total += sum;
            }
        }
        return new long[] {busy, total};
    }

    private static void assertNothingLeft() {
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(th -> th.getName().startsWith("rtbox-graph")
                && th.isAlive()), "a graph thread outlived the run");
        assertEquals(0, ProcessHandle.current().children().count(), "a client process outlived the run");
    }
}
