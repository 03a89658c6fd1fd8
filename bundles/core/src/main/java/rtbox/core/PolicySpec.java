package rtbox.core;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import rtbox.api.SchedPolicy;

/**
 * A policy as a run request writes it (a plan cell, the MQTT {@code run} body; {@link RunRequests}): {@code other}, {@code batch}, {@code idle},
 * {@code fifo[:PRIO]}, {@code rr[:PRIO]}, {@code iso[@PCT][:PRIO]} (PCT: iso_cpu,
 * the CPU share; PRIO: the priority for fifo and rr; emulated SCHED_ISO, like the
 * real one, has none). {@code priority} and {@code isoCpu} are -1 when not given.
 */
public record PolicySpec(String text, SchedPolicy policy, int priority, int isoCpu) {
    public static final PolicySpec DEFAULT = new PolicySpec("other", SchedPolicy.OTHER, -1, -1);

    /** Parses; returns null and adds nothing else when {@code problem} receives a message. */
    public static PolicySpec parse(String text, java.util.function.Consumer<String> problem) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        String name = t;
        int prio = -1, pct = -1;
        int colon = t.indexOf(':');
        if (colon >= 0) {
            name = t.substring(0, colon);
            prio = number(t.substring(colon + 1));
            if (prio < 1 || prio > 99) {
                problem.accept("'" + text + "': priority '" + t.substring(colon + 1) + "' is not 1 to 99");
                return null;
            }
        }
        int at = name.indexOf('@');
        if (at >= 0) {
            String share = name.substring(at + 1);
            name = name.substring(0, at);
            if (!name.equals("iso")) {
                problem.accept("'" + text + "': only iso takes a CPU share (@PCT)");
                return null;
            }
            pct = number(share);
            if (pct < 0 || pct > 100) {
                problem.accept("'" + text + "': iso_cpu '" + share + "' is not 0 to 100 (per cent)");
                return null;
            }
        }
        SchedPolicy p;
        try {
            p = SchedPolicy.parse(name); // the one policy-name parser: rtbox run --policy and MQTT read it too
        } catch (rtbox.api.RtboxException e) {
            problem.accept("'" + text + "' is not a policy: use other, batch, idle, fifo[:PRIO], rr[:PRIO] or "
                    + "iso[@PCT][:PRIO]");
            return null;
        }
        if (prio > 0 && !(p.isRealtime() || p == SchedPolicy.ISO)) {
            problem.accept("'" + text + "': " + name + " takes no priority");
            return null;
        }
        return new PolicySpec(text.trim(), p, prio, pct);
    }

    private static int number(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return Integer.MIN_VALUE;
        }
    }

    /** Whether the scheduling tuner is needed (ISO and its share); fifo/rr/other can be set by the probe itself. */
    public boolean needsTuner() {
        return policy == SchedPolicy.ISO || isoCpu >= 0;
    }

    /** The settings for the tuner (rtbox.policy=sched). */
    public Map<String, String> tunerSettings() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("policy", policy.lowerName());
        if (priority > 0) {
            m.put("priority", Integer.toString(priority));
        }
        if (isoCpu >= 0) {
            m.put("iso_cpu", Integer.toString(isoCpu));
        }
        return m;
    }

    /** Priority the probe threads get when no tuner decides: the given one, 50 for fifo/rr, else 0. */
    public int threadPriority() {
        if (policy.isRealtime() || policy == SchedPolicy.ISO) {
            return priority > 0 ? priority : 50;
        }
        return 0;
    }
}
