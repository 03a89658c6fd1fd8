package rtbox.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.RtboxException;
import rtbox.core.LoadSpec;
import rtbox.core.Runner;
import rtbox.cli.Subcommand;

/** {@code rtbox load NAME [K=V...] -D 5s}: runs one workload alone and prints its figures. */
@Component(service = Subcommand.class)
@Command(name = "load", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs one workload alone for a while and prints its figures.",
            "Workloads: pipe (mode=oneway|rtt, ends=threads|processes, count=N), blockio (path=..., bs=512..1M, "
                    + "rate=MB/s, wrap=true|false, count=N), fairness (workers=N, work=8ms, sleep=1ms, disturber=true); "
                    + "all take policy=, priority=, nice=, cpu=."})
public class LoadCommand implements Callable<Integer>, Subcommand {
    @Reference
    Runner runner;
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The workload.")
    String name;
    @Parameters(index = "1..*", paramLabel = "KEY=VALUE", description = "Its parameters.")
    List<String> params = new ArrayList<>();
    @Option(names = {"-D", "--duration"}, paramLabel = "TIME", description = "Run time: 5s, 1m (default 5s).")
    String duration = "5s";
    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write the figures to FILE as JSON: {\"workload\", \"parameters\", \"duration_s\", \"figures\"}.")
    Path json;
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Map<String, String> p = new LinkedHashMap<>();
            for (String kv : params) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new RtboxException("parameter", "parameter '" + kv + "' is not KEY=VALUE");
                }
                p.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            long ns = Durations.parseNanos("duration", duration);
            Map<String, Double> f = runner.load(new LoadSpec(name, p), ns, x -> { });
            out.println("load " + new LoadSpec(name, p) + ":");
            out.print(LoadFigures.figures(f, "  "));
            out.flush();
            if (json != null) {
                Path parent = json.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(json, LoadFigures.json(name, p, ns / 1e9, f), StandardCharsets.UTF_8);
            }
            return Cli.OK;
        } catch (RtboxException e) {
            err.println("rtbox: error: " + e.getMessage());
            return Cli.ERROR;
        } catch (IOException e) {
            err.println("rtbox: error: cannot write " + json + ": " + e.getMessage());
            return Cli.ERROR;
        }
    }
}
