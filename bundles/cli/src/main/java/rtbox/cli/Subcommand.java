package rtbox.cli;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A subcommand of {@code rtbox}, and the one way to add one: a DS service of this type whose
 * class is annotated with picocli's {@code @Command} and a name. rtbox.cli adds every such
 * service under {@code rtbox}, its own commands ({@code run}, {@code plan}, ...) as much as
 * other bundles' ({@code ctl}, {@code job}, {@code broker}, {@code control}), in the order of
 * their names; a bundle that is not installed simply has no command.
 *
 * <p>Only the command a line names is built whole; every other is listed in the usage from
 * its class's {@code @Command} (name, aliases, header, description, hidden), so a command
 * costs nothing until it is asked for.
 */
@ConsumerType
public interface Subcommand {
    /**
     * What rtbox.cli adds under {@code rtbox} when a line names this command: this object (the
     * default), or a picocli {@code CommandLine} built around it, for subcommands of its own
     * that need constructor arguments. Called once per command line, on the thread that runs it.
     */
    default Object command() {
        return this;
    }
}
