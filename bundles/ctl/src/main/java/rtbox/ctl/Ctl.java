package rtbox.ctl;

import java.io.PrintWriter;

import org.osgi.annotation.versioning.ProviderType;

/**
 * {@code rtbox ctl} as a typed service, for a workflow that runs a ctl command itself
 * ({@code rtbox job}) instead of finding the command among rtbox.cli's subcommands and
 * driving picocli on it.
 */
@ProviderType
public interface Ctl {
    /**
     * Runs one ctl command line ({@code run local timer -D 10s}, {@code plan local plans/quick.json
     * --out DIR}, with {@code --broker} and the credentials among the arguments), writing as
     * {@code rtbox ctl} does, and returns its exit code (Verdict.Outcome.exitCode: 2 on any error).
     */
    int execute(PrintWriter out, PrintWriter err, String... args);
}
