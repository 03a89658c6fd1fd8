package rtbox.cli.internal;

import java.util.function.Supplier;

import picocli.CommandLine;
import rtbox.plan.Plans;

/**
 * Everything of the command line that names rtbox.plan's types, in one class that is loaded
 * only when that bundle is there ({@link Cli} asks first): the {@code plan} and {@code results}
 * commands, the journal that {@code run} records into, and stopping the plan service's runs.
 */
final class PlanCommands {
    private PlanCommands() {
    }

    /** Adds {@code plan check|run} and {@code results}, which find the plan service through {@code plans}. */
    static void add(CommandLine cl, CommandTree tree, Supplier<Object> plans) {
        Supplier<Plans> typed = () -> (Plans) plans.get();
        tree.add(cl, "plan", PlanCommand.class, () -> new CommandLine(new PlanCommand())
                .addSubcommand("check", new PlanCommand.Check(typed))
                .addSubcommand("run", new PlanCommand.Run(typed)));
        tree.add(cl, "results", ResultsCommand.class, () -> new ResultsCommand(typed));
    }

    /** The result journal for {@code rtbox run}: the plan service when it is active, else nothing is journalled. */
    static RunCommand.Journal journal(Supplier<Object> plans) {
        return report -> {
            Plans p = (Plans) plans.get();
            if (p != null) {
                p.record(report);
            }
        };
    }

    static void stop(Object plans) {
        ((Plans) plans).stop();
    }
}
