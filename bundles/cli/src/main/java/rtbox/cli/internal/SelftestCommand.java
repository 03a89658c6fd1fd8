package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.api.result.Culprit;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.core.RunRequest;
import rtbox.cli.Subcommand;
import rtbox.core.Runner;
import rtbox.core.Selftest;
import rtbox.core.Thresholds;

/**
 * {@code rtbox selftest}: proves the measuring chain on this machine. First rtbox.core's
 * {@link Selftest} (the same the appliance runs for a record's self-test): a disturber
 * thread at SCHED_FIFO 90 on the probe's CPU spins for D us every P ms; the timer
 * probe (FIFO 80, 100 us interval, so a spin always covers a deadline near its start)
 * must see about duration/P spikes of about D, attributed to the disturber. Spikes
 * from the machine's own noise are counted apart: a noisy machine (a VM whose host
 * stalls it now and then) passes as long as the injected cluster is found.
 *
 * <p>Then the same from outside rtbox: a separate JVM ({@link DisturberProcess}, its
 * thread named "disturber") at SCHED_FIFO 99 on the probe's CPU spins F us every Q ms,
 * with no busy windows to tell rtbox about it. The kernel's trace must name it, with its
 * process id, for at least 95 % of its stalls, with a median within 10 % of F, and never
 * call one a JVM pause. Without a kernel trace that case says so and is not counted.
 */
@Component(service = Subcommand.class)
@Command(name = "selftest", sortOptions = false, description = "Injects a known disturbance and checks that the "
        + "timer probe sees it and attributes it.")
public class SelftestCommand implements Callable<Integer>, Subcommand {
    @Reference
    Runner runner;
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
    @Option(names = "--foreign-spin-us", paramLabel = "US", description = "The foreign disturber's spin F "
            + "(default 5000 us).")
    long foreignSpinUs = 5000;
    @Option(names = "--foreign-every-ms", paramLabel = "MS", description = "The foreign disturber's period Q "
            + "(default 500 ms).")
    long foreignEveryMs = 500;
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            long durationNs = Durations.parseNanos("duration", duration);
            int c = cpu != null ? cpu : rtbox.os.Sched.configuredCpus() - 1;
            out.printf(Locale.ROOT, "injecting: %d us of SCHED_FIFO 90 spinning on CPU %d every %d ms for %s;"
                    + " timer probe at FIFO 80, interval 100 us%n", spinUs, c, everyMs, duration);
            out.flush();
            Selftest.Outcome o = Selftest.run(runner, c, durationNs, spinUs, everyMs, "rtbox selftest");
            o.lines().forEach(out::println);
            out.printf(Locale.ROOT, "injecting from another process: %d us of SCHED_FIFO 99 spinning on CPU %d every %d"
                    + " ms for %s (a separate JVM, thread 'disturber')%n", foreignSpinUs, c, foreignEveryMs, duration);
            out.flush();
            RunReport r2;
            Outcome o2;
            try (ForeignDisturber d = ForeignDisturber.start(c, 99, foreignSpinUs, foreignEveryMs)) {
                RunRequest alone = Selftest.request(c, durationNs, spinUs, everyMs, "rtbox selftest (foreign disturber)");
                r2 = runner.run(new RunRequest("timer", alone.parameters(), Thresholds.NONE, alone.command(), List.of()),
                        f -> { });
                o2 = judgeForeign(r2, d.spins(), d.pid(), foreignSpinUs * 1000);
            }
            o2.lines.forEach(out::println);
            boolean pass = o.pass() && o2.pass;
            out.println(pass ? "PASS: the injected disturbances were seen and attributed"
                    : "FAIL: " + (o.pass() ? o2.reason : o.reason()));
            return pass ? Cli.OK : Cli.FAIL;
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
    }

    /** What the foreign case saw, and whether it proves the chain. */
    static final class Outcome {
        final List<String> lines = new ArrayList<>();
        boolean pass;
        String reason = "";
    }

    /**
     * The foreign case: each spin the other process reported inside the measurement must
     * overlap a spike whose culprits name "disturber" with that process's id.
     */
    static Outcome judgeForeign(RunReport r, List<long[]> spins, long pid, long spinNs) {
        Outcome o = new Outcome();
        String noTrace = r.result().notes().stream().filter(n -> n.startsWith("no kernel trace")).findFirst()
                .orElse(null);
        if (noTrace != null) {
            o.lines.add("foreign disturber not checked: " + noTrace);
            o.pass = true;
            return o;
        }
        long start = r.result().startNanos();
        long end = start + r.result().durationNs();
        int stalls = 0, named = 0, jvm = 0;
        String unnamed = null;
        List<Long> held = new ArrayList<>();
        for (long[] spin : spins) {
            if (spin[0] < start || spin[1] > end) {
                continue;
            }
            stalls++;
            Culprit found = null;
            Spike seen = null;
            for (ThreadResult t : r.result().threads()) {
                for (Spike s : t.spikes()) {
                    long from = start + s.offsetNs() - s.latencyNs();
                    long to = start + s.offsetNs();
                    if (from > spin[1] || to < spin[0]) {
                        continue;
                    }
                    if (s.kind() == rtbox.api.result.SpikeCause.JVM_PAUSE) {
                        jvm++;
                    }
                    if (seen == null || s.latencyNs() > seen.latencyNs()) {
                        seen = s;
                    }
                    for (Culprit c : s.culprits()) {
                        if (DisturberProcess.THREAD.equals(c.name()) && c.pid() == pid && found == null) {
                            found = c;
                        }
                    }
                }
            }
            if (found != null) {
                named++;
                held.add(found.durationNs());
            } else if (unnamed == null) {
                unnamed = String.format(Locale.ROOT, "first stall not named, at %.3f s: %s", (spin[0] - start) / 1e9,
                        seen == null ? "no spike overlapped it" : seen.cause() + ": " + seen.detail()
                        + (seen.culprits().isEmpty() ? "" : "; on the CPU: " + seen.culpritText()));
            }
        }
        held.sort(null);
        long median = held.isEmpty() ? 0 : held.get(held.size() / 2);
        o.lines.add(String.format(Locale.ROOT, "foreign: %d of %d stalls named as disturber (pid %d) by the kernel"
                + " trace, median %d us (injected %d us); %d labelled JVM pause", named, stalls, pid, median / 1000,
                spinNs / 1000, jvm));
        if (unnamed != null) {
            o.lines.add(unnamed);
        }
        r.result().notes().stream().filter(n -> n.startsWith("kernel trace")).forEach(o.lines::add);
        if (stalls == 0) {
            o.reason = "the foreign disturber reported no spin inside the measurement";
        } else if (named * 100 < stalls * 95) {
            o.reason = "only " + named + " of the foreign disturber's " + stalls + " stalls were named (95 % needed)";
        } else if (Math.abs(median - spinNs) > spinNs / 10) {
            o.reason = "the named stalls' median " + median / 1000 + " us is not within 10% of the injected "
                    + spinNs / 1000 + " us";
        } else if (jvm > 0) {
            o.reason = jvm + " of the foreign disturber's stalls were labelled JVM pause";
        } else {
            o.pass = true;
        }
        return o;
    }
}
