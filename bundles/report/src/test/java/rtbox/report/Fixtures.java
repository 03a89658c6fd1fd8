package rtbox.report;

import java.util.List;
import java.util.Map;

import rtbox.api.result.Check;
import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;

/** A two-CPU run with spikes of three causes, as a report would receive it. */
final class Fixtures {
    private Fixtures() {
    }

    static ThreadResult thread(int index, int cpu, List<Spike> spikes, int shift) {
        long[] counts = new long[400];
        for (int i = 40 + shift; i < 120 + shift; i++) {
            counts[i] = Math.max(1, 5000 / (1 + Math.abs(i - 60 - shift - 10 * index)));
        }
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        Histogram h = new Histogram(1000, counts, 3, n + 3, 40_000, 51_000_000, 62_000, 60_000, 110_000, 119_000);
        return new ThreadResult(index, cpu, 1000 + index, "fifo", 99, n + 3, 2, h,
                new CorrectedLatency(n + 5, 60_000, 110_000, 119_000, 51_000_000, ""), spikes, 0);
    }

    static RunReport report(String command) {
        return report(command, 0);
    }

    /**
     * A run whose histograms sit {@code shiftBuckets} further right (a loaded cell against
     * an idle one), with a max_latency_us threshold of 1000 us.
     */
    static RunReport report(String command, int shiftBuckets) {
        List<Spike> spikes0 = List.of(new Spike(0, 1_000_000_000L, 49_000_000, "RT throttling", "950000 of 1000000"),
                new Spike(0, 2_000_000_000L, 51_000_000, "RT throttling", "950000 of 1000000"),
                new Spike(0, 2_500_000_000L, 3_000_000, "JVM pause", "safepoint G1"));
        List<Spike> spikes1 = List.of(new Spike(1, 1_500_000_000L, 900_000, "unexplained", "kernel or hardware",
                List.of(new rtbox.api.result.Culprit("task", "kworker/1:2", 77, 77, "SCHED_OTHER", 0, false, 300_000))));
        ProbeResult r = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 3_000_000_000L, true,
                List.of(thread(0, 0, spikes0, shiftBuckets), thread(1, 1, spikes1, shiftBuckets)), Map.of("interval_us", 1000.0), List.of("a note"));
        return new RunReport(RunReport.SCHEMA, "run-1", 0, 3000, command, r,
                new Histogram(1000, new long[10], 0, 0, 0, 0, 0, 0, 0, 0), List.of(), Map.of(), List.of(),
                new SystemInfo(Map.of("release", "6.1.0", "preemption", "PREEMPT_RT", "cpu_model", "Pentium III")),
                new Verdict(Verdict.Outcome.FAIL, List.of(new Check("max_latency_us", 1000, 51000, Verdict.Outcome.FAIL,
                        "max_latency_us 51000 > 1000")), "max_latency_us 51000 > 1000 <&>"));
    }

    /** The pWCET threshold of {@link #withPwcet}, us: inside the plot (the tail reaches ~700 us). */
    static final long PWCET_US = 300;

    /**
     * {@code r} with a real pWCET estimate (rtbox.pwcet's) of 60 Gumbel block maxima (mu 100 us,
     * sigma 15 us, drawn by the inverse distribution function, seeded) and a pwcet_us check.
     */
    static RunReport withPwcet(RunReport r) {
        java.util.Random random = new java.util.Random(42);
        long[] max = new long[60], at = new long[60];
        for (int i = 0; i < max.length; i++) {
            max[i] = Math.round(100_000 - 15_000 * Math.log(-Math.log(random.nextDouble())));
            at[i] = i * 1_000_000_000L;
        }
        ThreadResult t = r.result().threads().get(0).withBlockMaxima(new rtbox.api.result.BlockMaxima(1000, max, at));
        rtbox.api.result.Pwcet p = rtbox.pwcet.PwcetEstimator.estimate(List.of(t), 1_000_000);
        if (!p.cell().applicable()) {
            throw new AssertionError("the fixture's estimate must hold: " + p.cell().refusal());
        }
        double high = p.cell().level(1e-9, "hour").highNs() / 1000;
        List<Check> checks = new java.util.ArrayList<>(r.verdict().checks());
        checks.add(new Check("pwcet_us", PWCET_US, high, high <= PWCET_US ? Verdict.Outcome.PASS : Verdict.Outcome.FAIL,
                "pwcet_us " + high));
        return new RunReport(r.schema(), r.runId(), r.startedEpochMs(), r.endedEpochMs(), r.command(), r.result(),
                r.jvmHiccups(), r.jvmStalls(), r.workloads(), r.events(), r.system(),
                new Verdict(r.verdict().outcome(), checks, r.verdict().reason()), p);
    }
}
