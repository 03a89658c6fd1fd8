package rtbox.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.LiveThread;
import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.RunReport;
import rtbox.core.LoadSpec;
import rtbox.report.Reports;
import rtbox.core.RunRequest;
import rtbox.cli.Subcommand;
import rtbox.core.Runner;
import rtbox.core.Thresholds;
import rtbox.report.HdrIntervalLog;
import rtbox.report.HtmlReport;
import rtbox.report.ReportCell;

/**
 * Over 400 lines: picocli wants every option of {@code rtbox run} as a field of one class, and
 * cyclictest's options with rtbox's own are many; the run itself is delegated.
 *
 * <p>{@code rtbox run PROBE}: runs one probe with cyclictest's option names where they
 * exist, prints the summary and a verdict, and exits 0 pass, 1 fail, 2 error,
 * 3 inconclusive.
 */
@Component(service = Subcommand.class)
@Command(name = "run", sortOptions = false, usageHelpAutoWidth = true,
        description = "Runs a probe (timer, ...) and gives a verdict. Options mean what they mean in cyclictest.")
public class RunCommand implements Callable<Integer>, Subcommand {
    @Reference
    Runner runner;

    /** rtbox.plan's service for the result journal, optional: typed Object as {@link Cli#plans}. */
    @Reference(service = rtbox.plan.Plans.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    volatile Object plans;
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
    @Option(names = {"-q", "--quiet"}, description = "Print on stdout only what cyclictest -q prints: the T: lines "
            + "at the end (with -h, the histogram instead); the verdict goes to stderr. No live figures, no progress.")
    boolean quiet;
    @Option(names = "--progress-every", paramLabel = "TIME", description = "When stdout is not a terminal, a progress "
            + "line with each thread's figures so far on stderr every TIME (default 10s; 0 for none). On a terminal "
            + "the T: lines are redrawn in place instead.")
    String progressEvery = "10s";
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
    @Option(names = "--pwcet", description = "Estimate the probabilistic worst case (extreme value theory on the maxima "
            + "of blocks of 1000 samples): the latency exceeded with p 1e-6, 1e-9, 1e-12 per sample and per hour, with "
            + "95 % intervals, or why it does not apply.")
    boolean pwcet;
    @Option(names = "--max-pwcet", paramLabel = "US", description = "FAIL if the latency exceeded in an hour with "
            + "probability --pwcet-per-hour (95 % upper bound) is over US; INCONCLUSIVE if the estimate is refused. "
            + "Implies --pwcet.")
    long maxPwcetUs = -1;
    @Option(names = "--pwcet-per-hour", paramLabel = "P", description = "The probability per hour --max-pwcet is "
            + "at (default 1e-9).")
    double pwcetPerHour = Thresholds.DEFAULT_PWCET_PER_HOUR;
    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", description = "A probe-specific option.")
    List<String> options = new ArrayList<>();
    @Option(names = "--load", paramLabel = "NAME[:K=V,...]", description = "Load the machine while measuring: "
            + "a workload and its parameters, e.g. pipe:mode=rtt or blockio:path=/dev/sda,bs=512 (repeatable; "
            + "see `rtbox load --help`).")
    List<String> loads = new ArrayList<>();
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    // cyclictest (rt-tests 2.x) options: the same meaning, or refused saying why.
    @Option(names = "--latency", paramLabel = "US", description = "Hold /dev/cpu_dma_latency at US during the run "
            + "(default 0, as cyclictest; released at the end).")
    int dmaLatencyUs = 0;
    @Option(names = "--laptop", description = "Leave /dev/cpu_dma_latency alone (cyclictest's --laptop): saves power, "
            + "worse latency.")
    boolean laptop;
    @Option(names = {"-n", "--nanosleep"}, description = "clock_nanosleep: what the timer probe always uses (older cyclictest's "
            + "-n; rt-tests 2.x always uses it and dropped the option, rtbox accepts it for old scripts).")
    boolean nanosleep;
    @Option(names = {"-N", "--nsecs"}, hidden = true)
    boolean nsecs;
    @Option(names = {"-b", "--breaktrace"}, paramLabel = "US", description = "Stop the run at the first wake-up later "
            + "than US and report it (# Break thread, # Break value; with the kernel trace, what held the CPU then "
            + "and the trace around it). Not a verdict: --max-latency is.")
    Long breaktrace;
    @Option(names = {"-d", "--distance"}, paramLabel = "US", hidden = true)
    Long distance;
    @Option(names = {"-v", "--verbose"}, description = "Print every sample as cyclictest -v: thread:cycle:latency (us). "
            + "The measuring threads store samples in a ring a printer thread drains.")
    boolean verbose;
    @Option(names = {"-s", "--system"}, hidden = true)
    boolean system;
    @Option(names = "--spike", paramLabel = "US", hidden = true)
    Long spike;
    @Option(names = "--priospread", hidden = true)
    boolean priospread;

    /** cyclictest options rtbox run does not do, each with why and what to use: null if none was given. */
    String refusedCyclictestOption() {
        if (nsecs) {
            return "-N/--nsecs is not supported: the summary is in microseconds as cyclictest's default; --report "
                    + "FILE has every figure in nanoseconds";
        }
        if (distance != null && distance != 0) {
            return "-d/--distance is not supported: every rtbox thread uses the same interval (-i), as cyclictest "
                    + "with -d 0; give -d 0 or leave it out";
        }
        if (system) {
            return "-s/--system (sys_nanosleep) is not supported: rt-tests 2.x removed it too; the timer probe uses "
                    + "clock_nanosleep";
        }
        if (spike != null) {
            return "--spike is not supported as an option: rtbox records every spike (over 10x the median) with its "
                    + "time and likely cause in the report anyway";
        }
        if (priospread) {
            return "--priospread is not supported: every measuring thread runs at the priority -p gives";
        }
        return null;
    }

    /** Where a finished run is recorded before it is reported: rtbox.plan's result journal. */
    interface Journal {
        void record(rtbox.api.result.RunReport report) throws RtboxException;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String refused = refusedCyclictestOption();
        if (refused != null) {
            err.println("rtbox: error: " + refused);
            return Cli.ERROR;
        }
        RunRequest request;
        try {
            request = request();
            runner.check(request);
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
        // Before measuring: a result file that cannot be written would lose the whole run's figures.
        String[] options = {"--json", "--report", "--html", "--hdrlog", "--junit", "--csv", "--histfile"};
        Path[] files = {json, report, html, hdrlog, junit, csv, histfile};
        for (int i = 0; i < files.length; i++) {
            String why = OutputFiles.unwritable(options[i], files[i]);
            if (why != null) {
                err.println("rtbox: error: " + why);
                return Cli.ERROR;
            }
        }
        long progressMs;
        try {
            progressMs = Durations.parseNanos("progress-every", progressEvery) / 1_000_000;
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
        boolean terminal = System.console() != null;
        // cyclictest -v prints samples, not refreshed T: lines; -q neither live lines nor progress.
        LiveDisplay live = quiet || verbose ? null : new LiveDisplay(terminal ? out : err, terminal, progressMs, probe,
                priority, intervalUs);
        SamplePrinter printer = verbose ? new SamplePrinter(System.out) : null;
        Runner.ProgressListener listener = new Runner.ProgressListener() {
            @Override
            public void progress(double fraction) {
                if (live != null) {
                    live.progress(fraction);
                }
            }

            @Override
            public void measuring(LiveThread thread) {
                if (live != null) {
                    live.add(thread);
                }
                if (printer != null) {
                    printer.add(thread);
                }
            }
        };
        RunReport r;
        CpuDmaLatency dma = null;
        if (verbose) {
            CyclictestStdout.verboseHeader(out);
        }
        if (!laptop) {
            try {
                dma = CpuDmaLatency.hold(dmaLatencyUs);
                // Where cyclictest prints it: when it is set, before measuring.
                out.println("# " + CpuDmaLatency.DEVICE + " set to " + dmaLatencyUs + "us");
            } catch (IOException e) {
                // As cyclictest: a warning, and the run goes on (the figures may include C-state exits).
                err.println("rtbox: warning: cannot hold " + CpuDmaLatency.DEVICE + " at " + dmaLatencyUs + " us ("
                        + e.getMessage() + "): deep C-states stay allowed");
            }
        }
        if (verbose) {
            CyclictestStdout.threadIntervals(out, request.parameters().cpus.length, intervalUs);
        }
        out.flush();
        if (live != null) {
            live.start();
        }
        if (printer != null) {
            printer.start();
        }
        try {
            r = runner.run(request, listener);
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        } finally {
            if (dma != null) {
                dma.close();
            }
            if (live != null) {
                live.finish();
            }
            if (printer != null) {
                printer.finish();
            }
        }
        if (printer != null && printer.lost() > 0) {
            out.println("# " + printer.lost() + " samples were overwritten before -v could print them (the printer "
                    + "fell a whole ring behind: a slow terminal? redirect stdout to a file); the figures count them");
        }
        // Into the result journal (synced) before it is reported anywhere; without rtbox.plan, none.
        Journal journal = Cli.planBundleWired() ? PlanCommands.journal(() -> plans) : null;
        if (journal != null) {
            try {
                journal.record(r);
            } catch (RtboxException e) {
                err.println("rtbox: warning: " + e.getMessage());
            }
        }
        CyclictestStdout.end(out, err, r, quiet, spec.commandLine().getParseResult().hasMatchedOption("-h"));
        out.flush();
        try {
            write(json, Reports.cyclictestJson(r));
            write(report, Reports.json(r));
            write(histfile, Reports.histogramFile(r));
            if (hdrlog != null) {
                write(hdrlog, HdrIntervalLog.render(List.of(new ReportCell(probe, r))));
            }
            if ((junit != null || csv != null) && journal == null) {
                // CI reports are written from a plan run's model, which rtbox.plan holds
                err.println("rtbox: error: --junit and --csv need the bundle " + Cli.PLAN_BUNDLE
                        + ", which is not installed; the other result files were written");
                return Cli.ERROR;
            }
            if (junit != null || csv != null) {
                rtbox.plan.PlanRun single = rtbox.report.CiReports.single(probe, r);
                write(junit, junit == null ? null : rtbox.report.CiReports.junit(single));
                write(csv, csv == null ? null : rtbox.report.CiReports.csv(single));
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

    /**
     * The run request that {@code rtbox run ARGS} would run, without running it: for
     * RunSchemaTest, which checks every front end against one table.
     */
    static RunRequest request(String... args) throws RtboxException {
        RunCommand c = new RunCommand();
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
                .histogramLimitUs(histogramUs).lockMemory(mlock).breakUs(breaktrace == null ? 0 : breaktrace)
                .printSamples(verbose);
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
        if (maxPwcetUs < -1) {
            throw new RtboxException("max-pwcet", "--max-pwcet " + maxPwcetUs + " is out of range: use 0 or more");
        }
        rtbox.core.RunSchema.pwcetPerHour("pwcet-per-hour", pwcetPerHour);
        return new RunRequest(probe, b.build(), new Thresholds(maxLatencyUs, maxP99Us, maxP999Us, maxOverflows,
                maxMissed, jvmStallBudgetUs, maxPwcetUs, pwcetPerHour), cmd, specs, pwcet);
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
