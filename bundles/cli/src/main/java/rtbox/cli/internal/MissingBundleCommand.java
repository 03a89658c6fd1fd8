package rtbox.cli.internal;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Stands in for a command whose bundle is not installed (the plan commands without rtbox.plan):
 * whatever follows, it says which bundle is missing and exits 2, instead of picocli's
 * "unknown subcommand", which would read as a typo.
 */
@Command(description = "Not available: its bundle is not installed.")
final class MissingBundleCommand implements Callable<Integer>, WithoutFramework {
    @Spec
    CommandSpec spec;
    @Unmatched
    List<String> ignored;
    private final String what;
    private final String bundle;

    MissingBundleCommand(String what, String bundle) {
        this.what = what;
        this.bundle = bundle;
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("rtbox: error: " + spec.name() + ": " + what + " need the bundle "
                + bundle + ", which is not installed in this runtime");
        return Cli.ERROR;
    }
}
