package rtbox.cli.internal;

import rtbox.api.RtboxException;
import rtbox.core.RunSchema;

/** cyclictest's time spelling (no suffix: seconds), which is rtbox's one time grammar: {@link RunSchema#duration}. */
final class Durations {
    private Durations() {
    }

    static long parseNanos(String what, String text) throws RtboxException {
        return RunSchema.duration(what, text);
    }
}
