package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

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
     * Only {@link PlanCommands} casts it.
     */
    @Reference(service = rtbox.plan.Plans.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    volatile Object plans;

    /**
     * Subcommands other bundles add: picocli command objects registered with the service
     * property {@code rtbox.command} (rtbox.mqtt's {@code ctl}). Without such a bundle they are absent.
     */
    @Reference(service = Object.class, target = "(rtbox.command=*)", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    final List<Object> extraCommands = new CopyOnWriteArrayList<>();

    private BundleContext context;
    private final CountDownLatch stopped = new CountDownLatch(1);

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
        stopped.countDown();
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

    /** The subcommands this bundle has itself; any other is another bundle's ({@link #extraCommands}). */
    private static final java.util.Set<String> OWN_COMMANDS = java.util.Set.of("run", "probes", "load", "selftest",
            "serve", "plan", "results", "help");

    /**
     * The launcher calls this component once it is active, which may be before another
     * bundle's command component registered (rtbox control on a loaded machine: "unknown
     * command 'control'"): a command that is not this bundle's is waited for, 10 s at most.
     */
    private void awaitExtraCommand(String[] args) {
        if (args.length == 0 || args[0].startsWith("-") || OWN_COMMANDS.contains(args[0])) {
            return;
        }
        long end = System.currentTimeMillis() + 10_000;
        while (extraCommands.stream().noneMatch(c -> args[0].equals(commandName(c)))
                && System.currentTimeMillis() < end) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static String commandName(Object command) {
        CommandLine.Command c = command.getClass().getAnnotation(CommandLine.Command.class);
        return c == null ? null : c.name();
    }

    private int execute(String[] args, boolean withoutFramework) {
        if (!withoutFramework) {
            awaitExtraCommand(args);
        }
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        boolean planBundle = planBundleWired();
        CommandTree tree = new CommandTree(args, wholeTree);
        CommandLine cl = new CommandLine(new RtboxCommand());
        tree.add(cl, "run", RunCommand.class,
                () -> new RunCommand(runner, planBundle ? PlanCommands.journal(() -> plans) : null));
        tree.add(cl, "probes", ProbesCommand.class, () -> new ProbesCommand(runner));
        tree.add(cl, "load", LoadCommand.class, () -> new LoadCommand(runner));
        tree.add(cl, "selftest", SelftestCommand.class, () -> new SelftestCommand(runner));
        tree.add(cl, "serve", ServeCommand.class, () -> new ServeCommand(context, stopped));
        if (planBundle) {
            PlanCommands.add(cl, tree, () -> plans);
        } else {
            cl.addSubcommand("plan", new MissingBundleCommand("plans", PLAN_BUNDLE));
            cl.addSubcommand("results", new MissingBundleCommand("the result journal", PLAN_BUNDLE));
        }
        for (Object command : extraCommands) {
            tree.add(cl, command);
        }
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
    private static boolean planBundleWired() {
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
