package rtbox.cli.internal;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Gives every command and subcommand, also those other bundles add (rtbox ctl's), a
 * {@code --help}, and a {@code -h} where the command does not use {@code -h} itself
 * ({@code rtbox run -h US} is cyclictest's histogram, so there only {@code --help}).
 * Done on the built tree so that no command can be added without it.
 */
final class HelpOptions {
    private HelpOptions() {
    }

    static void addEverywhere(CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        if (spec.options().stream().noneMatch(OptionSpec::usageHelp)) {
            boolean shortFree = spec.findOption("-h") == null;
            String[] names = shortFree ? new String[] {"-h", "--help"} : new String[] {"--help"};
            spec.addOption(OptionSpec.builder(names).usageHelp(true).description("Show this help and exit.")
                    .build());
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            addEverywhere(sub);
        }
    }
}
