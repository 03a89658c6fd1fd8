package rtbox.cli.internal;

import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import rtbox.core.Build;

@Command(name = "rtbox", description = "A plug-in real-time test appliance: measures whether a Linux machine "
        + "meets its deadlines.", subcommandsRepeatable = false, mixinStandardHelpOptions = true,
        versionProvider = RtboxCommand.Version.class)
class RtboxCommand implements Runnable, WithoutFramework {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code rtbox --version}: the version and the git commit it was built from (rtbox.core's manifest). */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {Build.describe(), "Java " + System.getProperty("java.version") + " ("
                    + System.getProperty("java.vm.name") + "), " + System.getProperty("os.name") + " "
                    + System.getProperty("os.version")};
        }
    }
}
