package rtbox.cli.internal;

import rtbox.api.RtboxException;
import rtbox.core.RunRequest;

/**
 * The run request {@code rtbox run ARGS} would run, read without running it. Public only
 * for RunSchemaTest (runtime), which checks every front end against one table of values;
 * the package stays private to the bundle.
 */
public final class RunArgs {
    private RunArgs() {
    }

    public static RunRequest request(String... args) throws RtboxException {
        return RunCommand.request(args);
    }
}
