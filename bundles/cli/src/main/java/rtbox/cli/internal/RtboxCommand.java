package rtbox.cli.internal;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "rtbox", description = "A plug-in real-time test appliance: measures whether a Linux machine "
        + "meets its deadlines.", subcommandsRepeatable = false)
class RtboxCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
