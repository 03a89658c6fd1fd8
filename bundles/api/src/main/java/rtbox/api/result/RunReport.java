package rtbox.api.result;

import java.util.List;
import java.util.Map;

/**
 * One run as reported: the probe's result, the JVM's own stalls and hiccup figures,
 * the loads that ran, the events, the machine and the verdict; {@code pwcet} (since 1.6) the
 * probabilistic worst case when the run was asked for one, else null.
 */
public record RunReport(
        int schema,
        String runId,
        long startedEpochMs,
        long endedEpochMs,
        String command,
        ProbeResult result,
        Histogram jvmHiccups,
        List<JvmStall> jvmStalls,
        Map<String, Map<String, Double>> workloads,
        List<RunEvent> events,
        SystemInfo system,
        Verdict verdict,
        Pwcet pwcet) {
    /** Version of this report's JSON shape. */
    public static final int SCHEMA = 1;

    /** A report without a pWCET estimate (as before 1.6). */
    public RunReport(int schema, String runId, long startedEpochMs, long endedEpochMs, String command,
            ProbeResult result, Histogram jvmHiccups, List<JvmStall> jvmStalls,
            Map<String, Map<String, Double>> workloads, List<RunEvent> events, SystemInfo system, Verdict verdict) {
        this(schema, runId, startedEpochMs, endedEpochMs, command, result, jvmHiccups, jvmStalls, workloads, events,
                system, verdict, null);
    }
}
