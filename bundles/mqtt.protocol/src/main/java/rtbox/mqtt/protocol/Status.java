package rtbox.mqtt.protocol;

import java.time.Instant;
import java.util.List;

/**
 * The appliance's retained status ({@code up/ID/status}): {@code online} with what it is
 * doing, or {@code offline} (its last will, or a clean stop). The fields after
 * {@code since} are given when online and null when offline; {@code run} and the fields
 * of the run (probe for a single run; plan, cell, cells, cellPercent for a plan) only while
 * busy. {@code rtboxVersion} (since 1.1): the appliance's rtbox and the git commit it was
 * built from, e.g. {@code rtbox 0.1.0.202612030910 (git 5d51b53)}; null from an older one.
 * {@code damaged} (since 1.3): what the appliance found damaged in its stores and set aside
 * or skipped (outbox files, journal records, request log records), one note each naming the
 * file and what was wrong, for a person to look at; null when nothing is (and from an older
 * appliance). {@code kernel}, {@code preemption} and {@code bootEntry} (since 1.6): the kernel the
 * appliance runs on (its release, uname -r), its preemption model ({@code PREEMPT_RT}, {@code
 * PREEMPT_DYNAMIC (full)}: rtbox.os's {@code Preemption}) and the rtbox image's boot entry it was
 * started from ({@code stock}, {@code rt}; "" off the image); null from an older appliance.
 */
public record Status(String appliance, Instant timestamp, String state, Instant since, Boolean busy, String run,
        String probe, String plan, Integer cell, Integer cells, Long cellPercent, List<String> probes,
        List<String> workloads, Long outboxMessages, Long outboxBytes, String rtboxVersion, List<String> damaged,
        String kernel, String preemption, String bootEntry)
        implements Message {
    public static final String ONLINE = "online", OFFLINE = "offline";

    /** A status without the kernel (as 1.5 had it). */
    public Status(String appliance, Instant timestamp, String state, Instant since, Boolean busy, String run,
            String probe, String plan, Integer cell, Integer cells, Long cellPercent, List<String> probes,
            List<String> workloads, Long outboxMessages, Long outboxBytes, String rtboxVersion, List<String> damaged) {
        this(appliance, timestamp, state, since, busy, run, probe, plan, cell, cells, cellPercent, probes, workloads,
                outboxMessages, outboxBytes, rtboxVersion, damaged, null, null, null);
    }

    /** A status without damage notes (as 1.2 had it). */
    public Status(String appliance, Instant timestamp, String state, Instant since, Boolean busy, String run,
            String probe, String plan, Integer cell, Integer cells, Long cellPercent, List<String> probes,
            List<String> workloads, Long outboxMessages, Long outboxBytes, String rtboxVersion) {
        this(appliance, timestamp, state, since, busy, run, probe, plan, cell, cells, cellPercent, probes, workloads,
                outboxMessages, outboxBytes, rtboxVersion, null, null, null, null);
    }

    /** A status without the appliance's version (as 1.0 had it). */
    public Status(String appliance, Instant timestamp, String state, Instant since, Boolean busy, String run,
            String probe, String plan, Integer cell, Integer cells, Long cellPercent, List<String> probes,
            List<String> workloads, Long outboxMessages, Long outboxBytes) {
        this(appliance, timestamp, state, since, busy, run, probe, plan, cell, cells, cellPercent, probes, workloads,
                outboxMessages, outboxBytes, null, null, null, null, null);
    }

    /** The offline status (the last will). */
    public static Status offline(String appliance, Instant timestamp, Instant since) {
        return new Status(appliance, timestamp, OFFLINE, since, null, null, null, null, null, null, null, null, null,
                null, null);
    }

    public boolean online() {
        return ONLINE.equals(state);
    }
}
