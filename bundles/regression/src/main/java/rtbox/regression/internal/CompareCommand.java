package rtbox.regression.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.cli.Subcommand;
import rtbox.regression.Comparison;
import rtbox.regression.Regression;
import rtbox.regression.RunFigures;

/**
 * {@code rtbox compare A... -- B...}: two sets of result files compared offline, the verdict
 * table printed, the exit code the whole verdict's (1 REGRESSED, 3 too few runs, 0 otherwise, 2 bad
 * input).
 */
@Component(service = Subcommand.class)
@Command(name = "compare", description = {
        "Whether set B of runs of a plan is worse than set A beyond the runs' own spread, per cell and figure"
                + " (p50, p99, p99.9, max, missed deadlines, xruns): B - A with a bootstrap interval and a t-test, the effect"
                + " size and REGRESSED, IMPROVED, NO CHANGE or TOO FEW RUNS (fewer than 3 runs in a set).",
        "  rtbox compare a1/report.json a2/report.json a3/report.json -- b1/report.json b2/report.json b3/report.json",
        "Files: a plan's report.json (rtbox plan run --report DIR) or a run's JSON (rtbox run --report FILE).",
        "A plan that repeats its cells (\"repetitions\": N) counts as N runs: rtbox compare a/report.json -- b/report.json.",
        "Exit code: 0 no change or improved, 1 regressed, 2 bad input, 3 too few runs to tell."})
public class CompareCommand implements Callable<Integer>, Subcommand {
    static final int BAD_INPUT = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--confidence", paramLabel = "C", description = "Confidence level of the intervals (default 0.99).")
    double confidence = Regression.DEFAULT_CONFIDENCE;

    @Option(names = "--resamples", paramLabel = "N", description = "Bootstrap resamples per figure (default 10000).")
    int resamples = Regression.DEFAULT_RESAMPLES;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Set A's result files, then --, then set B's.")
    List<String> files = new ArrayList<>();

    @Override
    public Integer call() {
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        int dash = original.indexOf("--");
        if (dash < 0) {
            return bad("put -- between set A's files and set B's: rtbox compare A1 A2 A3 -- B1 B2 B3");
        }
        // Everything after -- is a file of set B (picocli takes it as positional, -- itself dropped).
        int inB = original.size() - dash - 1;
        if (inB == 0 || inB >= files.size()) {
            return bad("set " + (inB == 0 ? "B" : "A") + " has no files: rtbox compare A1 A2 A3 -- B1 B2 B3");
        }
        try {
            List<RunFigures> a = read(files.subList(0, files.size() - inB));
            List<RunFigures> b = read(files.subList(files.size() - inB, files.size()));
            Comparison c = Regression.compare(a, b, confidence, resamples);
            spec.commandLine().getOut().print(VerdictTable.text(c));
            spec.commandLine().getOut().flush();
            return c.verdict().exitCode();
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        }
    }

    private static List<RunFigures> read(List<String> names) {
        List<RunFigures> runs = new ArrayList<>();
        for (String name : names) {
            try {
                runs.addAll(RunFigures.allFromJson(Files.readString(Path.of(name), StandardCharsets.UTF_8), name));
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException(name + ": no such file");
            } catch (IOException e) {
                throw new IllegalArgumentException(name + (Files.isDirectory(Path.of(name))
                        ? ": is a folder (name its report.json)" : ": cannot be read"));
            }
        }
        return runs;
    }

    private int bad(String message) {
        spec.commandLine().getErr().println("rtbox compare: " + message);
        spec.commandLine().getErr().flush();
        return BAD_INPUT;
    }
}
