package rtbox.cli.internal;

import java.util.function.Supplier;

import rtbox.plan.Plans;

/**
 * Everything of the command line that names rtbox.plan's types, in one class that is loaded
 * only when that bundle is there ({@link Cli} asks first): the journal that {@code run} records
 * into, and stopping the plan service's runs. (The {@code plan} and {@code results} commands are
 * components of their own, never satisfied without the bundle.)
 */
final class PlanCommands {
    private PlanCommands() {
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
