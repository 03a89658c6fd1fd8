package rtbox.cli.internal;

import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import rtbox.cli.Subcommand;
import rtbox.core.Runner;

@Component(service = Subcommand.class)
@Command(name = "probes", description = "Lists the probes installed now.")
public class ProbesCommand implements Callable<Integer>, Subcommand {
    @Reference
    Runner runner;
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        runner.probes().forEach(spec.commandLine().getOut()::println);
        return Cli.OK;
    }
}
