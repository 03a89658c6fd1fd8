package rtbox.mqtt.protocol;

import java.time.Instant;

/**
 * A message of one run: numbered 1, 2, ... without a gap within the run, so that a reader
 * drops a repeat by ({@link #run()}, {@link #sequence()}) and can tell that nothing is missing.
 */
public sealed interface RunMessage extends Message permits Progress, Cell, Result {
    Instant timestamp();

    String run();

    long sequence();
}
