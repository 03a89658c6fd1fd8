package rtbox.cli.internal;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import rtbox.core.Runner;

@Command(name = "probes", description = "Lists the probes installed now.")
class ProbesCommand implements Callable<Integer> {
    private final Runner runner;
    @Spec
    CommandSpec spec;

    ProbesCommand(Runner runner) {
        this.runner = runner;
    }

    @Override
    public Integer call() {
        runner.probes().forEach(spec.commandLine().getOut()::println);
        return Cli.OK;
    }
}
