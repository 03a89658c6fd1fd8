package rtbox.job.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import rtbox.broker.LocalBroker;
import rtbox.broker.LocalBrokers;
import rtbox.cli.Subcommand;
import rtbox.ctl.Ctl;
import rtbox.plan.PlanRun;
import rtbox.report.PlanReports;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code rtbox job}: the all-in-one default. Starts the embedded broker on a free
 * loopback port, starts this installation's appliance ({@code rtbox serve}, appliance
 * id {@code local}) as a child process connected to it, waits until the appliance
 * listens for commands, runs one {@code rtbox ctl} command against it, then stops
 * the appliance (SIGTERM: it delivers what it still holds, says offline) and the
 * broker, and exits with the ctl command's code.
 *
 * <p>The appliance is a process of its own, as on a real site: the broker and the
 * control room do not share its JVM, heap or CPU time with the measurement. It
 * keeps its framework storage and outbox under {@code local/} in the data folder,
 * apart from this process's (two frameworks must not share one storage folder).
 *
 * <p>It reaches the broker through rtbox.broker's {@link LocalBrokers} and ctl through the
 * typed {@link Ctl} service: nothing of either bundle's implementation.
 */
@Component(service = Subcommand.class)
@Command(name = "job", description = {
        "The all-in-one default: the embedded broker, this machine's appliance ('" + JobCommand.APPLIANCE + "')"
                + " and one rtbox ctl command against it.",
        "  rtbox job PLAN.json [--report DIR] [--junit FILE] [--csv FILE]   runs a plan (rtbox ctl plan " + JobCommand.APPLIANCE + " ...)"
                + " and writes its report",
        "  rtbox job run " + JobCommand.APPLIANCE + " timer -D 10s        any rtbox ctl command"})
public class JobCommand implements Callable<Integer>, Subcommand {
    static final String APPLIANCE = "local";
    private static final int ERROR = rtbox.api.result.Verdict.Outcome.ERROR.exitCode();

    @Spec
    CommandSpec spec;
    @Unmatched
    List<String> args = new ArrayList<>();

    @Reference
    Ctl ctl;
    @Reference
    LocalBrokers brokers;

    private BundleContext context;
    private volatile LocalAppliance appliance;
    private volatile LocalBroker broker;

    @Activate
    void activate(BundleContext context) {
        this.context = context;
    }

    @Deactivate
    void deactivate() {
        // A SIGTERM to the job stops the framework: the appliance and the broker go with it.
        LocalAppliance a = appliance;
        if (a != null) {
            a.stop();
            appliance = null;
        }
        LocalBroker b = broker;
        if (b != null) {
            b.close();
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Path junit = takeFileOption(args, "--junit"), csv = takeFileOption(args, "--csv");
        if ((junit != null || csv != null) && report(args) == null) {
            err.println("rtbox job: --junit and --csv need a plan and --report DIR (the cells are read from the"
                    + " report's messages), e.g. rtbox job plans/quick.json --report report --junit report/junit.xml");
            return ERROR;
        }
        List<String> ctlArgs = ctlArguments(args);
        if (ctlArgs == null) {
            spec.commandLine().usage(err);
            return ERROR;
        }
        String launcher = System.getProperty("rtbox.launcher");
        if (launcher == null || !Files.isExecutable(Path.of(launcher))) {
            err.println("rtbox job: start it through the rtbox launcher script (runtime/rtbox): it starts the"
                    + " appliance with it" + (launcher == null ? "" : "; " + launcher + " is not executable"));
            return ERROR;
        }
        Path local = dataDir(context).resolve(APPLIANCE);
        Path log = local.resolve("appliance.log");
        try {
            // A free port: a broker already on 1883 (Debian's mosquitto service) must not get the job's traffic.
            broker = brokers.start(0);
            appliance = LocalAppliance.start(launcher, local, broker.uri(), broker.passwordFile(), log);
            err.println("rtbox job: broker on " + broker.uri() + ", appliance '" + APPLIANCE + "' starting (its log: "
                    + log + ")");
            err.flush();
            long t0 = System.nanoTime();
            if (!appliance.awaitOnline(broker, err)) {
                return ERROR;
            }
            err.println(String.format(Locale.ROOT, "rtbox job: appliance '%s' online after %.1f s", APPLIANCE,
                    (System.nanoTime() - t0) / 1e9));
            err.flush();
            List<String> full = new ArrayList<>();
            full.add(ctlArgs.get(0));
            full.add("--broker=" + broker.uri());
            full.add("--user=" + LocalBroker.CONTROL_USER);
            full.add("--password=" + broker.password()); // in this process only: never on a command line
            full.addAll(ctlArgs.subList(1, ctlArgs.size()));
            Path report = report(args);
            if (report != null && Files.isDirectory(messages(report))) {
                // Only this run's messages: an older job's in the same folder would mix in.
                try (DirectoryStream<Path> old = Files.newDirectoryStream(messages(report), APPLIANCE + "-*.json")) {
                    for (Path f : old) {
                        Files.delete(f);
                    }
                }
            }
            int code = ctl.execute(spec.commandLine().getOut(), err, full.toArray(String[]::new));
            if (report != null) {
                PlanRun run = Files.isDirectory(messages(report)) ? JobReport.read(messages(report), APPLIANCE) : null;
                if (run == null) {
                    err.println("rtbox job: no plan result arrived, so there is no report in " + report);
                    return ERROR;
                }
                PrintWriter out = spec.commandLine().getOut();
                out.print(PlanReports.table(run));
                out.println("OVERALL " + run.verdict().outcome() + ": " + run.verdict().reason());
                List<Path> files = JobReport.write(run, report, "rtbox plan " + run.plan() + " on '" + APPLIANCE
                        + "' over MQTT (" + run.id() + ")", args.get(0));
                files.addAll(rtbox.report.CiReports.write(run, junit, csv));
                StringBuilder names = new StringBuilder();
                for (Path f : files) {
                    names.append(names.length() == 0 ? "" : ", ").append(f.getFileName());
                }
                out.println("rtbox job: report in " + report + ": " + names + " (the MQTT messages in "
                        + messages(report) + ")");
                out.flush();
                storeInControlRoom(launcher, messages(report), out, err);
            }
            return code;
        } catch (IOException | IllegalArgumentException e) {
            err.println("rtbox job: " + e.getMessage());
            return ERROR;
        } finally {
            deactivate();
            broker = null;
        }
    }

    /**
     * Stores the job's messages in the control room's database ({@code rtbox control import},
     * the control room's own runtime, in a child process), which prints the run page's URL.
     * Where the control room is not installed (the board's image has only rtbox.jar), says so
     * and goes on: the report is already written.
     */
    private void storeInControlRoom(String launcher, Path messages, PrintWriter out, PrintWriter err)
            throws InterruptedException {
        Path here = Path.of(launcher).toAbsolutePath().getParent();
        String controlJar = System.getenv("RTBOX_CONTROL_JAR");
        if ((controlJar == null || !Files.isRegularFile(Path.of(controlJar))) && !Files.isRegularFile(here.resolve(
                "control.jar")) && !Files.isRegularFile(here.resolve("target").resolve("control.jar"))) {
            out.println("rtbox job: no control room installed here (control.jar): the run is not stored for it");
            return;
        }
        ProcessBuilder pb = new ProcessBuilder(launcher, "control", "import", messages.toString());
        pb.environment().put("RTBOX_HOME", Path.of(System.getProperty("rtbox.home", ".")).toAbsolutePath().toString());
        pb.environment().put("RTBOX_DATA", dataDir(context).toString());
        pb.redirectErrorStream(true);
        try {
            Process p = pb.start();
            String text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            int code = p.waitFor();
            for (String line : text.split("\n")) {
                if (line.startsWith("rtbox control") || code != 0 && !line.isBlank()) {
                    (code == 0 ? out : err).println(line);
                }
            }
            if (code != 0) {
                err.println("rtbox job: storing the run in the control room's database failed (exit " + code
                        + "); the report above is complete");
            }
        } catch (IOException e) {
            err.println("rtbox job: cannot run rtbox control import: " + e.getMessage());
        }
        out.flush();
        err.flush();
    }

    /**
     * The ctl command to run: {@code PLAN.json [--report DIR] ...} is short for
     * {@code plan local PLAN.json --out DIR/mqtt ...} (the job then writes DIR's report from
     * those messages). Null when there is no command.
     */
    static List<String> ctlArguments(List<String> args) {
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            return null;
        }
        List<String> a = new ArrayList<>();
        if (args.get(0).endsWith(".json")) {
            a.add("plan");
            a.add(APPLIANCE);
            for (int i = 0; i < args.size(); i++) {
                String s = args.get(i);
                if (s.equals("--report") && i + 1 < args.size()) {
                    a.add("--out=" + messages(Path.of(args.get(++i))));
                } else if (s.startsWith("--report=")) {
                    a.add("--out=" + messages(Path.of(s.substring("--report=".length()))));
                } else {
                    a.add(s);
                }
            }
            return a;
        }
        a.addAll(args);
        return a;
    }

    /** The data folder (beside the framework storage): the job's appliance keeps its own under it. */
    static Path dataDir(BundleContext context) {
        String storage = context.getProperty("launch.storage.dir");
        return storage != null ? Path.of(storage).toAbsolutePath().getParent()
                : context.getDataFile("").toPath().toAbsolutePath();
    }

    /** Removes {@code --NAME FILE} or {@code --NAME=FILE} from args (job's own, not ctl's); returns FILE or null. */
    static Path takeFileOption(List<String> args, String name) {
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals(name) && i + 1 < args.size()) {
                args.remove(i);
                return Path.of(args.remove(i));
            } else if (args.get(i).startsWith(name + "=")) {
                return Path.of(args.remove(i).substring(name.length() + 1));
            }
        }
        return null;
    }

    /** The report folder a plan shorthand asked for, or null. */
    static Path report(List<String> args) {
        if (args.isEmpty() || !args.get(0).endsWith(".json")) {
            return null;
        }
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--report") && i + 1 < args.size()) {
                return Path.of(args.get(i + 1));
            } else if (args.get(i).startsWith("--report=")) {
                return Path.of(args.get(i).substring("--report=".length()));
            }
        }
        return null;
    }

    /** Where the plan's MQTT messages go, as rtbox ctl plan --out writes them: beside the report. */
    static Path messages(Path report) {
        return report.resolve("mqtt");
    }
}
