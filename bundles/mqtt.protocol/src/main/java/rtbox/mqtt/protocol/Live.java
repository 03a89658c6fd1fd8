package rtbox.mqtt.protocol;

import java.time.Instant;
import java.util.List;

/**
 * The live figures of the run under way ({@code up/ID/live}, since 1.5): sent at a bounded rate
 * (rtbox.mqtt's {@code liveIntervalMillis}), at QoS 0 and not retained, outside the outbox, so
 * one that is lost is simply replaced by the next; what is kept is the run's results (QoS 1).
 * For a plan, {@code plan}, {@code cell} (1-based) of {@code cells} and {@code cellName} say
 * which cell; for a single run they are null and {@code probe} names it. {@code percent} is the
 * progress within the cell (or the run), 0 to 100. {@code threads} is empty during a warm-up.
 */
public record Live(String appliance, Instant timestamp, String run, String probe, String plan, Integer cell,
        Integer cells, String cellName, long percent, List<LiveLine> threads) {
}
