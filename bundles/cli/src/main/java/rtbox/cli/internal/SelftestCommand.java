package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.LoadSpec;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.core.Thresholds;

/**
 * {@code rtbox selftest}: proves the measuring chain on this machine. A disturber
 * thread at SCHED_FIFO 90 on the probe's CPU spins for D us every P ms; the timer
 * probe (FIFO 80, 100 us interval, so a spin always covers a deadline near its start)
 * must see about duration/P spikes of about D, attributed to the disturber. Spikes
 * from the machine's own noise are counted apart: a noisy machine (a VM whose host
 * stalls it now and then) passes as long as the injected cluster is found.
 */
@Command(name = "selftest", sortOptions = false, description = "Injects a known disturbance and checks that the "
        + "timer probe sees it and attributes it.")
class SelftestCommand implements Callable<Integer> {
    private final Runner runner;
    @Spec
    CommandSpec spec;

    @Option(names = {"-D", "--duration"}, paramLabel = "TIME", description = "Measuring time (default 10s).")
    String duration = "10s";
    @Option(names = {"-a", "--affinity"}, paramLabel = "CPU", description = "CPU to test (default: the last one).")
    Integer cpu;
    @Option(names = "--spin-us", paramLabel = "US", description = "Disturbance length D (default 2000 us).")
    long spinUs = 2000;
    @Option(names = "--every-ms", paramLabel = "MS", description = "Disturbance period P (default 100 ms).")
    long everyMs = 100;
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    SelftestCommand(Runner runner) {
        this.runner = runner;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            long durationNs = Durations.parseNanos("duration", duration);
            int c = cpu != null ? cpu : rtbox.os.Sched.configuredCpus() - 1;
            RunParameters p = RunParameters.builder().intervalUs(100).policy(SchedPolicy.FIFO).priority(80).cpus(c)
                    .durationNs(durationNs).warmupNs(500_000_000L).build();
            String load = "disturber:cpu=" + c + ",priority=90,spin-us=" + spinUs + ",every-ms=" + everyMs;
            out.printf(Locale.ROOT, "injecting: %d us of SCHED_FIFO 90 spinning on CPU %d every %d ms for %s;"
                    + " timer probe at FIFO 80, interval 100 us%n", spinUs, c, everyMs, duration);
            out.flush();
            RunReport r = runner.run(new RunRequest("timer", p, Thresholds.NONE, "rtbox selftest", List.of(
                    LoadSpec.parse(load))), f -> { });
            Outcome o = judge(r, spinUs * 1000, everyMs * 1_000_000, durationNs);
            o.lines.forEach(out::println);
            out.println(o.pass ? "PASS: the injected disturbance was seen and attributed" : "FAIL: " + o.reason);
            return o.pass ? Cli.OK : Cli.FAIL;
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
    }

    /** What the self test saw, and whether it proves the chain. */
    static final class Outcome {
        final List<String> lines = new ArrayList<>();
        boolean pass;
        String reason = "";
    }

    static Outcome judge(RunReport r, long spinNs, long periodNs, long durationNs) {
        Outcome o = new Outcome();
        long expected = durationNs / periodNs;
        List<Long> injected = new ArrayList<>();
        long noise = 0, noiseMax = 0, p50 = 0;
        for (ThreadResult t : r.result().threads()) {
            p50 = Math.max(p50, t.latency().p50Ns());
            for (Spike s : t.spikes()) {
                if ("workload".equals(s.cause()) && s.detail().startsWith("disturber")) {
                    injected.add(s.latencyNs());
                } else {
                    noise++;
                    noiseMax = Math.max(noiseMax, s.latencyNs());
                }
            }
        }
        injected.sort(null);
        long median = injected.isEmpty() ? 0 : injected.get(injected.size() / 2);
        o.lines.add(String.format(Locale.ROOT, "seen: %d spikes attributed to the disturber (expected about %d),"
                + " median %d us, range %d..%d us (injected %d us; wake-up p50 %d us)", injected.size(), expected,
                median / 1000, injected.isEmpty() ? 0 : injected.get(0) / 1000,
                injected.isEmpty() ? 0 : injected.get(injected.size() - 1) / 1000, spinNs / 1000, p50 / 1000));
        o.lines.add(String.format(Locale.ROOT, "machine's own noise: %d other spikes, largest %d us", noise,
                noiseMax / 1000));
        long tolerance = Math.max(2, expected / 10);
        if (Math.abs(injected.size() - expected) > tolerance) {
            o.reason = "saw " + injected.size() + " disturber spikes, expected " + expected + " +/- " + tolerance;
        } else if (median < spinNs * 9 / 10 || median > spinNs * 11 / 10 + p50) {
            o.reason = "the disturber spikes' median " + median / 1000 + " us is not within 10% of the injected "
                    + spinNs / 1000 + " us (plus the wake-up floor " + p50 / 1000 + " us)";
        } else {
            o.pass = true;
        }
        return o;
    }
}
