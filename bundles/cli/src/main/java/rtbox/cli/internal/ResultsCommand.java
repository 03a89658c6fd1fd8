package rtbox.cli.internal;

import java.io.PrintWriter;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.report.PlanReports;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/** {@code rtbox results [ID]}: the past plan runs in the journal, or one of them in full. */
@Command(name = "results", description = "Lists the plan runs in the result journal, or prints one (ID, a prefix of "
        + "it, or 'last'); printing one exits with its verdict's code, as plan run did.")
class ResultsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "The run to print.")
    String id;
    @Option(names = "--json", description = "Print the run's JSON report instead of the text.")
    boolean json;
    private final Supplier<Plans> plans;

    ResultsCommand(Supplier<Plans> plans) {
        this.plans = plans;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Plans.History h;
        try {
            h = PlanCommand.plans(plans).history();
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        }
        if (!h.damaged().isEmpty()) {
            err.println("rtbox: journal " + h.journal() + ": skipped " + h.damaged().size() + " damaged "
                    + (h.damaged().size() == 1 ? "record" : "records") + ":");
            h.damaged().forEach(d -> err.println("  " + d));
        }
        if (id == null) {
            if (h.runs().isEmpty()) {
                out.println("no plan runs in " + h.journal());
                return Cli.OK;
            }
            out.println(String.format(Locale.ROOT, "%-25s %-20s %-16s %-7s %-11s %s", "RUN", "STARTED (UTC)", "PLAN",
                    "CELLS", "STATE", "VERDICT"));
            for (PlanRun r : h.runs()) {
                out.println(String.format(Locale.ROOT, "%-25s %-20s %-16s %-7s %-11s %s", r.id(), time(r.startedEpochMs()),
                        r.plan(), r.cells().size() + "/" + r.cellsPlanned(), r.state(), r.verdict().outcome()));
            }
            return Cli.OK;
        }
        List<PlanRun> match = id.equals("last") && !h.runs().isEmpty() ? List.of(h.runs().get(h.runs().size() - 1))
                : h.runs().stream().filter(r -> r.id().startsWith(id)).collect(Collectors.toList());
        if (match.size() != 1) {
            err.println("rtbox: error: " + (match.isEmpty() ? "no run '" + id + "' in " + h.journal()
                    : "'" + id + "' matches " + match.size() + " runs: give more of the id"));
            return Cli.ERROR;
        }
        out.print(json ? PlanReports.json(match.get(0)) + "\n" : PlanReports.text(match.get(0)));
        // One run: its verdict's exit code, as plan run gave it and ctl results gives it.
        return match.get(0).verdict().exitCode();
    }

    private static String time(long ms) {
        SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
        f.setTimeZone(TimeZone.getTimeZone("UTC"));
        return f.format(new Date(ms));
    }
}
