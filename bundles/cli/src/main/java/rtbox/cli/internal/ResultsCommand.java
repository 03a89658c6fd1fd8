package rtbox.cli.internal;

import java.io.PrintWriter;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.report.PlanReports;
import rtbox.plan.PlanRun;
import rtbox.cli.Subcommand;
import rtbox.plan.Plans;

/**
 * {@code rtbox results [ID]}: the past plan runs in the journal, a page at a time, or one of
 * them in full; the journal is read as a stream either way, never built whole.
 */
@Component(service = Subcommand.class)
@Command(name = "results", description = "Lists the plan runs in the result journal, the newest --limit of them "
        + "(--before ID for older ones), or prints one (ID, a prefix of it, or 'last'); printing one exits with its "
        + "verdict's code, as plan run did.")
public class ResultsCommand implements Callable<Integer>, Subcommand {
    @Spec
    CommandSpec spec;
    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "The run to print.")
    String id;
    @Option(names = "--json", description = "Print the run's JSON report instead of the text.")
    boolean json;
    @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
            description = "List at most N runs, the newest (default ${DEFAULT-VALUE}).")
    int limit;
    @Option(names = "--before", paramLabel = "ID", description = "List the runs older than run ID (a page back).")
    String before;
    /** Mandatory, as {@link PlanCommand}'s. */
    @Reference
    Plans plans;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (limit < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--limit " + limit
                    + " is not a number of runs (1 or more)");
        }
        try {
            Plans p = PlanCommand.plans(() -> plans);
            // Summaries are small: a prefix is looked for in all of them, the run is then read alone.
            Plans.Page page = p.page(id == null ? before : null, id == null ? limit : Integer.MAX_VALUE);
            if (!page.damaged().isEmpty()) {
                err.println("rtbox: journal " + page.journal() + ": skipped damaged records:");
                page.damaged().forEach(d -> err.println("  " + d));
            }
            return id == null ? list(page, out) : print(p, page, out, err);
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
    }

    private Integer list(Plans.Page page, PrintWriter out) {
        if (page.runs().isEmpty()) {
            out.println(before == null ? "no plan runs in " + page.journal()
                    : "no plan runs before " + before + " in " + page.journal() + " (the oldest, or not in it)");
            return Cli.OK;
        }
        out.println(String.format(Locale.ROOT, "%-25s %-20s %-16s %-7s %-11s %s", "RUN", "STARTED (UTC)", "PLAN",
                "CELLS", "STATE", "VERDICT"));
        for (Plans.Summary r : page.runs()) {
            out.println(String.format(Locale.ROOT, "%-25s %-20s %-16s %-7s %-11s %s", r.id(), time(r.startedEpochMs()),
                    r.plan(), r.cellsRun() + "/" + r.cellsPlanned(), r.state(), r.verdict().outcome()));
        }
        if (page.older() != null) {
            out.println("(" + page.runs().size() + " of " + page.total() + " runs; older ones: rtbox results --before "
                    + page.older() + ")");
        }
        return Cli.OK;
    }

    private Integer print(Plans p, Plans.Page page, PrintWriter out, PrintWriter err) throws RtboxException {
        List<Plans.Summary> all = page.runs();
        List<Plans.Summary> match = id.equals("last") && !all.isEmpty() ? List.of(all.get(all.size() - 1))
                : all.stream().filter(r -> r.id().startsWith(id)).collect(Collectors.toList());
        PlanRun run = match.size() == 1 ? p.run(match.get(0).id()) : null;
        if (run == null) {
            err.println("rtbox: error: " + (match.size() < 2 ? "no run '" + id + "' in " + page.journal()
                    : "'" + id + "' matches " + match.size() + " runs: give more of the id"));
            return Cli.ERROR;
        }
        if (json) {
            // Streamed: a run of many cells is more JSON than the CLI's heap holds as one string.
            PlanReports.json(run, out);
            out.print('\n');
        } else {
            out.print(PlanReports.text(run));
        }
        // One run: its verdict's exit code, as plan run gave it and ctl results gives it.
        return run.verdict().exitCode();
    }

    private static String time(long ms) {
        SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
        f.setTimeZone(TimeZone.getTimeZone("UTC"));
        return f.format(new Date(ms));
    }
}
