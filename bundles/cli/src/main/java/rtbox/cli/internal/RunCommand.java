package rtbox.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.RunReport;
import rtbox.core.LoadSpec;
import rtbox.core.Reports;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.core.Thresholds;
import rtbox.report.HdrIntervalLog;
import rtbox.report.HtmlReport;
import rtbox.report.ReportCell;

/**
 * {@code rtbox run PROBE}: runs one probe with cyclictest's option names where they
 * exist, prints the summary and a verdict, and exits 0 pass, 1 fail, 2 error,
 * 3 inconclusive.
 */
@Command(name = "run", sortOptions = false, usageHelpAutoWidth = true,
        description = "Runs a probe (timer, ...) and gives a verdict. Options mean what they mean in cyclictest.")
class RunCommand implements Callable<Integer> {
    private final Runner runner;
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROBE", description = "The probe to run: see `rtbox probes`.")
    String probe;
    @Option(names = {"-p", "--priority"}, description = "Priority of the measuring threads (default 0; with -p > 0 "
            + "the policy defaults to fifo).")
    int priority;
    @Option(names = "--policy", paramLabel = "NAME", description = "other, fifo, rr, batch, idle, iso.")
    String policy;
    @Option(names = {"-i", "--interval"}, paramLabel = "US", description = "Interval in us (default 1000).")
    long intervalUs = 1000;
    @Option(names = {"-t", "--threads"}, arity = "0..1", fallbackValue = "-1", paramLabel = "NUM",
            description = "Number of measuring threads; without NUM, one per CPU.")
    Integer threads;
    @Option(names = {"-S", "--smp"}, description = "One thread per CPU, each pinned to its CPU (-t -a).")
    boolean smp;
    @Option(names = {"-a", "--affinity"}, arity = "0..1", fallbackValue = "", paramLabel = "CPUSET",
            description = "Pin threads to these CPUs (e.g. 1 or 0-3,6); without CPUSET, thread N to CPU N.")
    String affinity;
    @Option(names = {"-D", "--duration"}, paramLabel = "TIME", description = "Run time: 10s, 5m, 1h, 1d (no suffix: s).")
    String duration;
    @Option(names = {"-l", "--loops"}, paramLabel = "N", description = "Number of cycles per thread.")
    long loops;
    @Option(names = {"-m", "--mlockall"}, description = "Lock memory (mlockall with MCL_ONFAULT).")
    boolean mlock;
    @Option(names = {"-h", "--histogram"}, paramLabel = "US", description = "Histogram size in 1 us buckets (default 10000).")
    int histogramUs = 10_000;
    @Option(names = "--histfile", paramLabel = "FILE", description = "Write the histogram to FILE (cyclictest's format).")
    Path histfile;
    @Option(names = {"-q", "--quiet"}, description = "Print only the summary at the end; no progress.")
    boolean quiet;
    @Option(names = "--json", paramLabel = "FILE", description = "Write cyclictest's --json document to FILE.")
    Path json;
    @Option(names = "--report", paramLabel = "FILE", description = "Write rtbox's full JSON report to FILE.")
    Path report;
    @Option(names = "--html", paramLabel = "FILE", description = "Write an HTML report with plots to FILE.")
    Path html;
    @Option(names = "--hdrlog", paramLabel = "FILE", description = "Write an HdrHistogram interval log to FILE.")
    Path hdrlog;
    @Option(names = "--junit", paramLabel = "FILE", description = "Write the verdict and each check as JUnit XML to FILE "
            + "(for Jenkins, GitLab, LAVA).")
    Path junit;
    @Option(names = "--csv", paramLabel = "FILE", description = "Write the figures and verdict as CSV to FILE.")
    Path csv;
    @Option(names = "--warmup", paramLabel = "TIME", description = "Warm-up before measuring (default 1s).")
    String warmup = "1s";
    @Option(names = "--max-latency", paramLabel = "US", description = "FAIL if any wake-up is later than US.")
    long maxLatencyUs = -1;
    @Option(names = "--max-p99", paramLabel = "US", description = "FAIL if a thread's p99 is over US.")
    long maxP99Us = -1;
    @Option(names = "--max-p999", paramLabel = "US", description = "FAIL if a thread's p99.9 is over US.")
    long maxP999Us = -1;
    @Option(names = "--max-missed", paramLabel = "N", description = "FAIL if more than N deadlines were missed.")
    long maxMissed = -1;
    @Option(names = "--max-overflows", paramLabel = "N", description = "FAIL if more than N samples overflow the histogram.")
    long maxOverflows = -1;
    @Option(names = "--jvm-stall-budget", paramLabel = "US", description = "INCONCLUSIVE if the JVM paused longer (default 1000).")
    long jvmStallBudgetUs = 1000;
    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", description = "A probe-specific option.")
    List<String> options = new ArrayList<>();
    @Option(names = "--load", paramLabel = "NAME[:K=V,...]", description = "Load the machine while measuring: "
            + "a workload and its parameters, e.g. pipe:mode=rtt or blockio:path=/dev/sda,bs=512 (repeatable; "
            + "see `rtbox load --help`).")
    List<String> loads = new ArrayList<>();
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    private final java.util.function.Supplier<rtbox.plan.Plans> plans;

    RunCommand(Runner runner, java.util.function.Supplier<rtbox.plan.Plans> plans) {
        this.runner = runner;
        this.plans = plans;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RunRequest request;
        try {
            request = request();
            runner.check(request);
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
        boolean tty = !quiet && System.console() != null;
        RunReport r;
        try {
            r = runner.run(request, tty ? f -> progress(err, f) : f -> { });
        } catch (RtboxException e) {
            if (tty) {
                err.print("\r\033[K");
            }
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
        if (tty) {
            err.print("\r\033[K");
            err.flush();
        }
        // Into the result journal (synced) before it is reported anywhere.
        rtbox.plan.Plans journal = plans.get();
        if (journal != null) {
            try {
                journal.record(r);
            } catch (RtboxException e) {
                err.println("rtbox: warning: " + e.getMessage());
            }
        }
        out.print(Reports.summary(r));
        out.print(LoadFigures.format(r.workloads(), r.events()));
        out.flush();
        try {
            write(json, Reports.cyclictestJson(r));
            write(report, Reports.json(r));
            write(histfile, Reports.histogramFile(r));
            if (hdrlog != null) {
                write(hdrlog, HdrIntervalLog.render(List.of(new ReportCell(probe, r))));
            }
            if (junit != null || csv != null) {
                rtbox.plan.PlanRun single = rtbox.plan.CiReports.single(probe, r);
                write(junit, junit == null ? null : rtbox.plan.CiReports.junit(single));
                write(csv, csv == null ? null : rtbox.plan.CiReports.csv(single));
            }
            if (html != null) {
                write(html, HtmlReport.render("rtbox " + probe, r.verdict().outcome() + ": " + r.verdict().reason(),
                        List.of(new ReportCell(probe, r))));
            }
        } catch (IOException e) {
            err.println("rtbox: error: cannot write a result file: " + e.getMessage());
            return Cli.ERROR;
        }
        return r.verdict().exitCode();
    }

    private static void write(Path file, String text) throws IOException {
        if (file != null) {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
    }

    private long lastPercent = -1;

    private void progress(PrintWriter err, double fraction) {
        long percent = Math.round(fraction * 100);
        if (percent != lastPercent) {
            lastPercent = percent;
            err.print(String.format(Locale.ROOT, "\rrtbox: %s %3d%%", probe, percent));
            err.flush();
        }
    }

    /**
     * The run request that {@code rtbox run ARGS} would run, without running it: for
     * RunSchemaTest, which checks every front end against one table.
     */
    static RunRequest request(String... args) throws RtboxException {
        RunCommand c = new RunCommand(null, null);
        new picocli.CommandLine(c).parseArgs(args);
        return c.request();
    }

    RunRequest request() throws RtboxException {
        SchedPolicy p = policy != null ? SchedPolicy.parse(policy) : priority > 0 ? SchedPolicy.FIFO : SchedPolicy.OTHER;
        long durationNs = duration == null ? 0 : Durations.parseNanos("duration", duration);
        if (durationNs == 0 && loops == 0 && duration != null) {
            throw new RtboxException("duration", "duration '" + duration + "' is zero: give a positive time");
        }
        RunParameters.Builder b = RunParameters.builder().intervalUs(intervalUs).policy(p).priority(priority)
                .cpus(cpus()).durationNs(durationNs).loops(loops).warmupNs(Durations.parseNanos("warmup", warmup))
                .histogramLimitUs(histogramUs).lockMemory(mlock);
        for (String o : options) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new RtboxException("option", "option '" + o + "' is not KEY=VALUE");
            }
            b.option(o.substring(0, eq), o.substring(eq + 1));
        }
        String cmd = "rtbox " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        List<LoadSpec> specs = new ArrayList<>();
        for (String l : loads) {
            specs.add(LoadSpec.parse(l));
        }
        return new RunRequest(probe, b.build(), new Thresholds(maxLatencyUs, maxP99Us, maxP999Us, maxOverflows,
                maxMissed, jvmStallBudgetUs), cmd, specs);
    }

    /** CPUs for the measuring threads, as cyclictest assigns them. */
    int[] cpus() throws RtboxException {
        int online = rtbox.os.Sched.configuredCpus();
        int n = threads == null ? (smp ? online : -2) : threads == -1 ? online : threads;
        if (threads != null && threads != -1 && threads < 1) {
            throw new RtboxException("threads", "thread count " + threads + " must be at least 1");
        }
        int[] set;
        if (affinity != null && !affinity.isEmpty()) {
            set = rtbox.core.RunSchema.cpus("affinity", affinity);
            if (set.length == 0) {
                throw new RtboxException("affinity", "CPU set '" + affinity + "' names no CPU");
            }
        } else {
            set = null;
        }
        if (n == -2) {
            n = set == null ? 1 : set.length;
        }
        int[] cpus = new int[n];
        for (int i = 0; i < n; i++) {
            cpus[i] = set == null ? i % online : set[i % set.length];
        }
        return cpus;
    }
}
