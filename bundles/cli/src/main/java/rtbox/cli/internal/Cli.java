package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import picocli.CommandLine;
import rtbox.cli.Subcommand;
import rtbox.core.Runner;

/**
 * The command line. bnd's launcher calls a {@code Callable} registered with
 * {@code main.thread=true} on the JVM's main thread once the framework is up, and
 * exits with the Integer it returns; the arguments come from the launcher's own
 * service property {@code launcher.arguments}.
 */
@Component(service = Callable.class, property = "main.thread=true")
public class Cli implements Callable<Integer> {
    static final int OK = rtbox.api.result.Verdict.Outcome.PASS.exitCode(),
            FAIL = rtbox.api.result.Verdict.Outcome.FAIL.exitCode(),
            ERROR = rtbox.api.result.Verdict.Outcome.ERROR.exitCode();
    /** Exit code of {@link #runWithoutFramework} for "start the framework and ask again" (sysexits' EX_TEMPFAIL). */
    public static final int NEEDS_FRAMEWORK = 75;

    @Reference
    Runner runner;

    /**
     * The rtbox.plan service ({@code rtbox.plan.Plans}), optional: this bundle imports rtbox.plan
     * optionally, so an appliance without it still serves and runs, and the plan commands say
     * what is missing. Typed Object so that no field or method of this class names a type
     * of that package: DS and picocli reflect on their classes, which would fail without it.
     * Only {@link PlanCommands} casts it, to stop the plan service's runs when this component stops.
     */
    @Reference(service = rtbox.plan.Plans.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    volatile Object plans;

    /**
     * Every subcommand, this bundle's and other bundles' alike: the services of the typed
     * {@link Subcommand} (the one way to add a command, bundles/cli/README.md). A bundle that is
     * not installed has none.
     */
    @Reference(service = Subcommand.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    final List<Subcommand> commands = new CopyOnWriteArrayList<>();

    private BundleContext context;

    /** One hook per JVM, however often this component activates. */
    private static final java.util.concurrent.atomic.AtomicBoolean SAFEPOINT_LOG_HOOK =
            new java.util.concurrent.atomic.AtomicBoolean();

    @Activate
    void activate(BundleContext context) {
        this.context = context;
        removeSafepointLogAtExit();
    }

    /**
     * The launcher's safepoint log (-Drtbox.safepoint.log) is this process's alone and read
     * only while it runs: removed when the JVM exits, so a command does not leave one behind
     * in the run folder (the launcher exec's the JVM, so no shell trap can). The hook uses
     * JDK classes only: it runs after the framework, and this bundle, stopped.
     */
    private static void removeSafepointLogAtExit() {
        String log = System.getProperty("rtbox.safepoint.log");
        if (log == null || log.isBlank() || !SAFEPOINT_LOG_HOOK.compareAndSet(false, true)) {
            return;
        }
        java.nio.file.Path file = java.nio.file.Path.of(log);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                java.nio.file.Files.deleteIfExists(file);
                // and what the JVM rotated it into (-Xlog's filecount: FILE.0, FILE.1 ...)
                for (int i = 0; i < 100; i++) {
                    java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(log + "." + i));
                }
            } catch (java.io.IOException e) {
                // the launcher removes it at its next start
            }
        }, "rtbox-safepoint-log-removal"));
    }

    @Deactivate
    void deactivate() {
        Object p = plans;
        if (p != null) {
            PlanCommands.stop(p);
        }
        runner.stop();
    }

    @Override
    public Integer call() {
        return execute(launcherArguments(), false);
    }

    /**
     * What rtbox.jar's launcher calls, on a plain class path and without a framework, for
     * the commands that need none (help, version, plan check): this component constructed,
     * given its references and activated as its DS description says (without a
     * BundleContext). Returns
     * {@link #NEEDS_FRAMEWORK}, having printed nothing, for a command that needs the
     * framework (everything that measures or serves); the launcher then starts it.
     */
    public int runWithoutFramework(String[] args) {
        return execute(args, true);
    }

    /** The commands that need rtbox.plan: without it they are {@link MissingBundleCommand}s. */
    private static final List<String> PLAN_COMMANDS = List.of("plan", "results");

    /**
     * The launcher calls this component once it is active, which may be before the component
     * of the command a line names registered (rtbox control on a loaded machine: "unknown
     * command 'control'"): that command is waited for, 10 s at most.
     */
    private void awaitCommand(String[] args) {
        String name = CommandTree.wanted(args);
        if (name == null || name.equals("help") || PLAN_COMMANDS.contains(name) && !planBundleWired()) {
            return;
        }
        long end = System.currentTimeMillis() + 10_000;
        while (commands.stream().noneMatch(c -> name.equals(CommandTree.name(c)))
                && System.currentTimeMillis() < end) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private int execute(String[] args, boolean withoutFramework) {
        if (!withoutFramework) {
            awaitCommand(args);
        }
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        CommandTree tree = new CommandTree(args, wholeTree);
        CommandLine cl = new CommandLine(new RtboxCommand());
        // By name: the same order whichever bundle's component registered first, with or without the framework.
        Map<String, Subcommand> byName = new TreeMap<>();
        for (Subcommand c : commands) {
            String name = CommandTree.name(c);
            if (name != null) {
                byName.putIfAbsent(name, c);
            }
        }
        for (String name : PLAN_COMMANDS) {
            byName.putIfAbsent(name, null); // no such component: rtbox.plan is not there (or not yet)
        }
        byName.forEach((name, c) -> {
            if (c != null) {
                tree.add(cl, c);
            } else {
                cl.addSubcommand(name, new MissingBundleCommand(name.equals("plan") ? "plans" : "the result journal",
                        PLAN_BUNDLE));
            }
        });
        cl.addSubcommand("help", new CommandLine.HelpCommand());
        HelpOptions.addEverywhere(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            err.println("rtbox: error: " + e.getMessage());
            return ERROR;
        });
        cl.setParameterExceptionHandler((e, a) -> {
            // The mistake, "did you mean" and where help is: not the whole usage, which buries
            // the one line that matters.
            Suggestions.print(e, err);
            return ERROR;
        });
        if (withoutFramework) {
            // Decided on the parsed line, before anything runs or prints: the same tree and
            // handlers print the same help, version and mistakes as with the framework.
            cl.setExecutionStrategy(parsed -> WithoutFramework.canRun(parsed)
                    ? new CommandLine.RunLast().execute(parsed) : NEEDS_FRAMEWORK);
        }
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    static final String PLAN_BUNDLE = "rtbox.plan";

    /** Build every command, not only the one a line names ({@link CommandTree}): CommandTreeTest's reference. */
    boolean wholeTree;

    /** {@link #execute} for the tests: a line's answer with the tree built as {@link #wholeTree} says. */
    int executeForTest(String[] args) {
        return execute(args, true);
    }

    /**
     * Whether this bundle sees rtbox.plan's API (its optional import is wired, or the classes are
     * on the plain class path). Asked before {@link PlanCommands} is touched, which names its types.
     */
    static boolean planBundleWired() {
        try {
            Class.forName("rtbox.plan.Plans", false, Cli.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private String[] launcherArguments() {
        try {
            for (ServiceReference<?> ref : context.getServiceReferences((String) null, "(launcher.arguments=*)")) {
                Object a = ref.getProperty("launcher.arguments");
                if (a instanceof String[]) {
                    return (String[]) a;
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        return new String[0];
    }
}
