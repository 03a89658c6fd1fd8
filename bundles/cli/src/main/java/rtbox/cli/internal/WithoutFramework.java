package rtbox.cli.internal;

import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Marks a command that answers without the framework (it reads files and prints, nothing
 * that a bundle installed later could change): rtbox.jar's launcher runs those on a plain
 * class path, in a fraction of the framework's start-up (issue 15). Help and version need
 * no mark: every command's {@code --help} is the same text either way.
 */
interface WithoutFramework {
    /** Whether the parsed line runs without the framework: help or version asked for, or only marked commands. */
    static boolean canRun(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.isUsageHelpRequested() || p.isVersionHelpRequested()) {
                return true;
            }
        }
        Object command = parsed.asCommandLineList().get(parsed.asCommandLineList().size() - 1).getCommand();
        return command instanceof WithoutFramework || command instanceof CommandLine.HelpCommand;
    }
}
