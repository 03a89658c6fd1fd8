package rtbox.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.cli.Subcommand;
import rtbox.plan.CellResult;
import rtbox.plan.PlanException;
import rtbox.report.PlanReports;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/**
 * {@code rtbox plan check FILE} and {@code rtbox plan run FILE [--report DIR]}. Its reference to
 * rtbox.plan's service is mandatory: without that bundle this component is never satisfied (nor
 * its class loaded), and rtbox.cli puts a {@link MissingBundleCommand} in its place.
 */
@Component(service = Subcommand.class)
@Command(name = "plan", description = "Acceptance test plans: check one, or run it (see plans/README.md).")
public class PlanCommand implements Callable<Integer>, WithoutFramework, Subcommand {
    @Spec
    CommandSpec spec;
    @Reference
    Plans plans;

    @Override
    public Object command() {
        return new CommandLine(this).addSubcommand("check", new Check(() -> plans))
                .addSubcommand("run", new Run(() -> plans));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Cli.ERROR;
    }

    /** The plan service, or an error naming the missing bundle. */
    static Plans plans(Supplier<Plans> s) throws RtboxException {
        Plans p = s.get();
        // The launcher may call the command line before SCR has activated rtbox.plan: give it a moment.
        for (int i = 0; p == null && i < 100; i++) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            p = s.get();
        }
        if (p == null) {
            throw new RtboxException("plan", "plans need the rtbox.plan bundle, which is not running");
        }
        return p;
    }

    /** A plan file that is not there, said as such (not as a parse problem), or null when it is readable. */
    static String unreadable(Path file) {
        if (!Files.exists(file)) {
            return "plan file " + file + " does not exist" + (file.isAbsolute() ? "" : " (looked in "
                    + file.toAbsolutePath().getParent() + ")");
        }
        if (Files.isDirectory(file)) {
            return "plan file " + file + " is a directory, not a plan";
        }
        if (!Files.isReadable(file)) {
            return "plan file " + file + " cannot be read (permission denied)";
        }
        return null;
    }

    static int problems(PrintWriter err, RtboxException e, Path file) {
        if (e instanceof PlanException) {
            PlanException pe = (PlanException) e;
            err.println("rtbox: error: plan " + file + " has " + pe.problems().size()
                    + (pe.problems().size() == 1 ? " problem" : " problems") + "; nothing was run");
            for (String p : pe.problems()) {
                err.println("  " + p);
            }
        } else {
            err.println("rtbox: error: " + e.getMessage());
        }
        return Cli.ERROR;
    }

    @Command(name = "check", description = "Checks a plan whole (every problem, with its path) without running it.")
    static class Check implements Callable<Integer>, WithoutFramework {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "FILE", description = "The plan (JSON).")
        Path file;
        private final Supplier<Plans> plans;

        Check(Supplier<Plans> plans) {
            this.plans = plans;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            String missing = unreadable(file);
            if (missing != null) {
                spec.commandLine().getErr().println("rtbox: error: " + missing);
                return Cli.ERROR;
            }
            try {
                List<String> cells = plans(plans).check(file);
                out.println(file + ": OK, " + cells.size() + (cells.size() == 1 ? " cell" : " cells") + ":");
                for (int i = 0; i < cells.size(); i++) {
                    out.println(String.format(Locale.ROOT, "  %2d. %s", i + 1, cells.get(i)));
                }
                for (String n : plans(plans).notes(file)) {
                    spec.commandLine().getErr().println("rtbox: note: " + n);
                }
                return Cli.OK;
            } catch (RtboxException e) {
                return problems(spec.commandLine().getErr(), e, file);
            }
        }
    }

    @Command(name = "run", description = "Runs a plan, cell by cell, and gives the verdict. Exit 0 pass, 1 fail, "
            + "2 error, 3 inconclusive. Ctrl-C or SIGTERM stops after the current cell's partial result.")
    static class Run implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "FILE", description = "The plan (JSON).")
        Path file;
        @Option(names = "--report", paramLabel = "DIR", description = "Write report.txt, report.json, report.html, report.hlog "
                + "and each cell's cyclictest --json to DIR.")
        Path report;
        @Option(names = {"-q", "--quiet"}, description = "No progress.")
        boolean quiet;
        @Option(names = "--junit", paramLabel = "FILE", description = "Write each cell and check as JUnit XML to FILE "
                + "(for Jenkins, GitLab, LAVA).")
        Path junit;
        @Option(names = "--csv", paramLabel = "FILE", description = "Write the cell table as CSV to FILE.")
        Path csv;
        private final Supplier<Plans> plans;

        Run(Supplier<Plans> plans) {
            this.plans = plans;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            boolean tty = !quiet && System.console() != null;
            String missing = unreadable(file);
            if (missing != null) {
                err.println("rtbox: error: " + missing);
                return Cli.ERROR;
            }
            String unwritable = OutputFiles.unwritable("--junit", junit);
            unwritable = unwritable != null ? unwritable : OutputFiles.unwritable("--csv", csv);
            unwritable = unwritable != null || report == null ? unwritable
                    : OutputFiles.unwritable("--report", report.resolve("report.json"));
            if (unwritable != null) {
                err.println("rtbox: error: " + unwritable);
                return Cli.ERROR;
            }
            PlanRun run;
            try {
                run = plans(plans).run(file, new Plans.Listener() {
                    long lastPercent = -1;

                    @Override
                    public void cellStarted(int index, int count, String name) {
                        if (!quiet) {
                            err.println(String.format(Locale.ROOT, "rtbox: cell %d/%d: %s", index + 1, count, name));
                        }
                        lastPercent = -1;
                    }

                    @Override
                    public void progress(int index, int count, double fraction) {
                        long p = Math.round(fraction * 100);
                        if (tty && p != lastPercent) {
                            lastPercent = p;
                            err.print(String.format(Locale.ROOT, "\rrtbox: cell %d/%d %3d%%", index + 1, count, p));
                            err.flush();
                        }
                    }

                    @Override
                    public void cellFinished(CellResult cell, int count) {
                        if (tty) {
                            err.print("\r\033[K");
                            err.flush();
                        }
                        out.print(PlanReports.cellSummary(cell, count));
                        out.println();
                        out.flush();
                    }
                });
            } catch (RtboxException e) {
                return problems(err, e, file);
            }
            out.print(PlanReports.table(run));
            out.println("OVERALL " + run.verdict().outcome() + ": " + run.verdict().reason());
            out.println("rtbox: run " + run.id() + " is in the journal: rtbox results " + run.id());
            try {
                rtbox.report.CiReports.write(run, junit, csv);
            } catch (IOException e) {
                err.println("rtbox: error: cannot write " + e.getMessage() + " (the results are in the journal)");
                return Cli.ERROR;
            }
            if (report != null) {
                try {
                    List<Path> files = rtbox.report.ReportSet.write(run, report,
                            "rtbox plan " + run.plan() + " (" + run.id() + ")", file.toString());
                    out.println("rtbox: report in " + report + ": " + files.stream().map(f -> f.getFileName().toString())
                            .reduce((a, b) -> a + ", " + b).orElse(""));
                } catch (IOException e) {
                    err.println("rtbox: error: cannot write the report to " + report + ": " + e.getMessage()
                            + " (the results are in the journal)");
                    return Cli.ERROR;
                }
            }
            out.flush();
            return run.verdict().exitCode();
        }
    }
}
