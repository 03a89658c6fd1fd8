package rtbox.mqtt.protocol;

import java.time.Instant;
import java.util.List;

/**
 * The appliance's retained status ({@code up/ID/status}): {@code online} with what it is
 * doing, or {@code offline} (its last will, or a clean stop). The fields after
 * {@code since} are given when online and null when offline; {@code run} and the fields
 * of the run (probe for a single run; plan, cell, cells, cellPercent for a plan) only while
 * busy.
 */
public record Status(String appliance, Instant timestamp, String state, Instant since, Boolean busy, String run,
        String probe, String plan, Integer cell, Integer cells, Long cellPercent, List<String> probes,
        List<String> workloads, Long outboxMessages, Long outboxBytes) implements Message {
    public static final String ONLINE = "online", OFFLINE = "offline";

    /** The offline status (the last will). */
    public static Status offline(String appliance, Instant timestamp, Instant since) {
        return new Status(appliance, timestamp, OFFLINE, since, null, null, null, null, null, null, null, null, null,
                null, null);
    }

    public boolean online() {
        return ONLINE.equals(state);
    }
}
