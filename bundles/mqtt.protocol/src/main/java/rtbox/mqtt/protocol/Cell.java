package rtbox.mqtt.protocol;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonObject;

/**
 * One cell's result of a plan ({@code up/ID/runs/RUN/cell}): a single run's fields plus the
 * cell, its policy, axes, loads and what the scheduling tuner changed ({@code tuner}).
 * {@code verdict} is the cell's (INCONCLUSIVE when its worst wake-up was a JVM pause; ERROR
 * with {@code reason} when it could not run, and then {@code figures} and {@code report} are null).
 */
public record Cell(String appliance, Instant timestamp, String run, long sequence, PlanCell cell, String probe,
        Outcome verdict, String reason, boolean complete, Instant started, Instant ended, Figures figures,
        JsonObject report, String policy, Map<String, String> axes, List<String> loads, Map<String, String> tuner)
        implements RunMessage {
}
