package rtbox.mqtt.protocol;

import java.time.Instant;

/**
 * A run's progress ({@code up/ID/runs/RUN/progress}): each 10 % of a single run (with its
 * {@code probe}), or the start of a plan's cell (with {@code cell}; {@code percent} is then of
 * the plan). Exactly one of {@code probe} and {@code cell} is given.
 */
public record Progress(String appliance, Instant timestamp, String run, long sequence, String probe, long percent,
        PlanCell cell) implements RunMessage {
}
