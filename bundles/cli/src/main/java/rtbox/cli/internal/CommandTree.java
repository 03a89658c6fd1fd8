package rtbox.cli.internal;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import rtbox.cli.Subcommand;

/**
 * Builds only the branch of the command tree that a command line names (issue 15). picocli
 * makes a command's model by reflection on its class, its options, mixins and subcommands,
 * and building every command (run alone has some 40 options) took most of the time of
 * {@code rtbox --help} and {@code rtbox plan check} (bench/startup). The command the line
 * names (its first word that is not an option; after {@code help}, the word after that) is
 * built whole; every other is a stand-in with the name, aliases, header, description and
 * hidden flag of its {@code @Command}: all that a parent's usage and "did you mean" read of
 * it. So every line parses, prints and exits as with the whole tree (CommandTreeTest
 * compares them); a line never reaches a stand-in, since it is not the command it names.
 */
final class CommandTree {
    private final String wanted;
    private final boolean whole;

    /** {@code whole}: build every command (as before; for the tests that compare). */
    CommandTree(String[] args, boolean whole) {
        this.wanted = wanted(args);
        this.whole = whole;
    }

    /** The command a line names: its first word not an option, or after "help" the next; null when none. */
    static String wanted(String[] args) {
        boolean afterHelp = false;
        for (String a : args) {
            if (a.startsWith("-")) {
                continue;
            }
            if (!afterHelp && a.equals("help")) {
                afterHelp = true;
                continue;
            }
            return a;
        }
        return null;
    }

    /** Whether {@code name} is built whole. */
    boolean built(String name) {
        return whole || name.equals(wanted);
    }

    /** The name a subcommand is added under: its class's {@code @Command} name (null without one). */
    static String name(Subcommand command) {
        Command c = command.getClass().getAnnotation(Command.class);
        return c == null || c.name().isEmpty() ? null : c.name();
    }

    /** Adds {@code command} under its name: {@link Subcommand#command()} when built, else a stand-in from its annotation. */
    void add(CommandLine parent, Subcommand command) {
        String name = name(command);
        parent.addSubcommand(name, built(name) ? command.command() : standIn(name, command.getClass()));
    }

    private static CommandSpec standIn(String name, Class<?> type) {
        Command c = type.getAnnotation(Command.class);
        CommandSpec spec = CommandSpec.create().name(name).aliases(c.aliases());
        spec.usageMessage().header(c.header()).description(c.description()).hidden(c.hidden());
        return spec;
    }
}
