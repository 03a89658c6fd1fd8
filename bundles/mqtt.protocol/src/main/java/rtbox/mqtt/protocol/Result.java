package rtbox.mqtt.protocol;

import java.time.Instant;

import com.google.gson.JsonObject;

/**
 * A run's result ({@code up/ID/runs/RUN/result}, the run's last message). A single run has
 * its {@code probe}, and {@code figures} and {@code report} (rtbox's full run report, as
 * {@code rtbox run --report} writes it) when it measured; a plan's result has {@code plan}
 * instead. {@code started} and {@code ended} are null where the run never started.
 */
public record Result(String appliance, Instant timestamp, String run, long sequence, String probe, Outcome verdict,
        String reason, boolean complete, Instant started, Instant ended, Figures figures, JsonObject report,
        PlanOutcome plan) implements RunMessage {
}
