package rtbox.core.internal;

import java.util.ArrayList;
import java.util.List;

import rtbox.api.result.Check;
import rtbox.api.result.JvmStall;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.Pwcet;
import rtbox.api.result.PwcetEstimate;
import rtbox.api.result.PwcetLevel;
import rtbox.api.result.Spike;
import rtbox.api.result.SpikeCause;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.core.Thresholds;

/**
 * Turns figures and thresholds into a verdict: the one rule, for {@code rtbox run}, a plan's
 * cells, the MQTT results and the control room (which all carry this verdict, none decides
 * again; rtbox.core.VerdictRule is its public face). A failed check whose worst sample was
 * a JVM pause (by its typed cause, {@link SpikeCause#JVM_PAUSE}) proves nothing about the
 * machine, so the run is INCONCLUSIVE, not FAIL. A passed run whose worst sample was a JVM
 * pause stays a PASS: the pause is inside the measurement (coordinated omission corrected),
 * so the machine's own worst was no larger and the bound it passed holds; what makes such a
 * run INCONCLUSIVE is the JVM stalling for longer than its budget ({@code jvm_stall_us}).
 * Without a latency threshold (max, p99, p99.9) there is nothing to pass: the run is
 * MEASURED, never PASS, whatever the other checks (overflows, missed deadlines, the
 * JVM's budget) said; a failed one of those is still a FAIL, since the user asked for it.
 * A verdict needs samples: a thread with none, or (when the run's parameters say how many
 * to expect) with fewer than {@link #SAMPLE_TOLERANCE} of them, makes a run that met its
 * thresholds INCONCLUSIVE, never PASS (a duration of "1ns" was a PASS of 0 samples).
 * The probabilistic threshold ({@code pwcet_us}) is a latency threshold like the others: the
 * upper end of the 95 % confidence interval of the cell's pWCET estimate at the stated
 * probability per hour is compared with it; an estimate refused (its checks failed) proves
 * nothing, so a run that met its other thresholds is INCONCLUSIVE, with the refusal's reason.
 */
public final class Judge {
    private Judge() {
    }

    /** The share of the expected samples a thread must take for its run to PASS. */
    static final double SAMPLE_TOLERANCE = 0.5;

    static Verdict judge(ProbeResult r, Thresholds t, List<JvmStall> jvmStalls) {
        return judge(r, t, jvmStalls, -1);
    }

    /**
     * {@code expectedSamples}: what each thread should take by the run's duration (or loops)
     * and interval; -1 when the probe's parameters do not say.
     */
    public static Verdict judge(ProbeResult r, Thresholds t, List<JvmStall> jvmStalls, long expectedSamples) {
        return judge(r, t, jvmStalls, expectedSamples, null);
    }

    /** The verdict with the run's pWCET estimate (null: none made) for a {@code pwcet_us} threshold. */
    public static Verdict judge(ProbeResult r, Thresholds t, List<JvmStall> jvmStalls, long expectedSamples,
            Pwcet pwcet) {
        List<Check> checks = new ArrayList<>();
        long max = 0, p99 = 0, p999 = 0, overflows = 0, missed = 0;
        Spike worst = null;
        for (ThreadResult th : r.threads()) {
            max = Math.max(max, th.latency().maxNs());
            p99 = Math.max(p99, th.latency().p99Ns());
            p999 = Math.max(p999, th.latency().p999Ns());
            overflows += th.latency().overflows();
            missed += th.missedDeadlines();
            for (Spike s : th.spikes()) {
                if (worst == null || s.latencyNs() > worst.latencyNs()) {
                    worst = s;
                }
            }
        }
        check(checks, "max_latency_us", t.maxLatencyUs(), max / 1000.0);
        check(checks, "p99_us", t.p99Us(), p99 / 1000.0);
        check(checks, "p99.9_us", t.p999Us(), p999 / 1000.0);
        check(checks, "overflows", t.maxOverflows(), overflows);
        check(checks, "missed_deadlines", t.maxMissedDeadlines(), missed);
        long longestJvm = jvmStalls.stream().mapToLong(JvmStall::durationNs).max().orElse(0);
        if (t.jvmStallBudgetUs() >= 0) {
            check(checks, "jvm_stall_us", t.jvmStallBudgetUs(), longestJvm / 1000.0);
        }
        String pwcetUnknown = t.pwcetUs() >= 0 ? pwcet(checks, t, pwcet) : null;
        boolean failed = checks.stream().anyMatch(c -> c.outcome() == Outcome.FAIL && !c.metric().equals("jvm_stall_us"));
        boolean jvmOverBudget = checks.stream().anyMatch(c -> c.outcome() == Outcome.FAIL && c.metric().equals("jvm_stall_us"));
        boolean worstIsJvm = worst != null && worst.latencyNs() >= max && worst.kind() == SpikeCause.JVM_PAUSE;
        if (failed && worstIsJvm) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, "the worst latency (" + max / 1000 + " us) was a JVM pause ("
                    + worst.detail() + "), not the machine under test: rerun");
        }
        String jvmXruns = jvmXruns(checks, r, t, missed);
        if (failed && jvmXruns != null) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, jvmXruns);
        }
        if (failed) {
            return new Verdict(Outcome.FAIL, checks, failedList(checks));
        }
        if (!hasLatencyThreshold(t)) {
            StringBuilder why = new StringBuilder(checks.stream().anyMatch(c -> !c.metric().equals("jvm_stall_us"))
                    ? "no latency thresholds given" : "no thresholds given");
            if (!r.complete()) {
                why.append("; ").append(cutShort(r));
            }
            if (jvmOverBudget) {
                why.append("; the JVM stalled for ").append(longestJvm / 1000).append(" us (budget ")
                        .append(t.jvmStallBudgetUs()).append(" us), so the worst figures may be the JVM's");
            }
            return new Verdict(Outcome.MEASURED, checks, why.toString());
        }
        String few = fewSamples(r, expectedSamples);
        if (few != null) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, few + ": too few to judge; run longer");
        }
        // A run cut short proves nothing either way, whatever else happened in it: say that first.
        if (!r.complete()) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, cutShort(r)
                    + (r.breakTrace() != null ? ": the thresholds held until then, over a shorter run than asked" : ""));
        }
        if (jvmOverBudget) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, "the JVM stalled for " + longestJvm / 1000
                    + " us, over the budget of " + t.jvmStallBudgetUs() + " us: rerun");
        }
        if (pwcetUnknown != null) {
            return new Verdict(Outcome.INCONCLUSIVE, checks, pwcetUnknown);
        }
        return new Verdict(Outcome.PASS, checks, "all thresholds met");
    }

    /**
     * The {@code pwcet_us} check: PASS or FAIL on the estimate's upper confidence bound at the
     * stated probability per hour; INCONCLUSIVE (and why, returned) when there is no estimate
     * to judge by.
     */
    private static String pwcet(List<Check> checks, Thresholds t, Pwcet pwcet) {
        PwcetEstimate e = pwcet == null ? null : pwcet.cell();
        String p = String.format(java.util.Locale.ROOT, "%.0e", t.pwcetPerHour());
        String why;
        if (e == null) {
            why = "pwcet_us: no pWCET estimate (the probe keeps no block maxima)";
        } else if (!e.applicable()) {
            why = "pwcet_us: the pWCET estimate was refused, " + e.refusal();
        } else {
            PwcetLevel l = e.level(t.pwcetPerHour(), "hour");
            if (l == null) {
                why = "pwcet_us: the estimate has no level per hour (the probe has no interval)";
            } else {
                double us = l.highNs() / 1000;
                boolean pass = us <= t.pwcetUs();
                String bound = fmt(Math.round(us * 10) / 10.0);
                // The acceptance record's words (issue 36): what was shown, with what confidence, on what.
                checks.add(new Check("pwcet_us", t.pwcetUs(), us, pass ? Outcome.PASS : Outcome.FAIL, pass
                        ? "p(latency > " + t.pwcetUs() + " us in an hour) < " + p + ", 95 % confidence, assumptions"
                                + " checked (pwcet_us " + bound + " <= " + t.pwcetUs() + ")"
                        : "pwcet_us " + bound + " > " + t.pwcetUs() + ": the latency exceeded with p " + p
                                + " in an hour may be up to " + bound + " us (95 % upper bound, assumptions checked)"));
                return null;
            }
        }
        checks.add(new Check("pwcet_us", t.pwcetUs(), -1, Outcome.INCONCLUSIVE, why)); // -1: no figure (JSON has no NaN)
        return why;
    }

    /**
     * Why the run is INCONCLUSIVE when only its xrun limit failed and the xruns a JVM pause
     * overlapped ({@code xruns_jvm}, XrunAttribution) are what took it over: a stall the JVM
     * caused is never blamed on the kernel. Null when the machine's own xruns fail the limit,
     * or another check failed.
     */
    private static String jvmXruns(List<Check> checks, ProbeResult r, Thresholds t, long missed) {
        Double jvm = r.figures().get("xruns_jvm");
        if (jvm == null || jvm <= 0) {
            return null;
        }
        for (Check c : checks) {
            if (c.outcome() == Outcome.FAIL && !c.metric().equals("jvm_stall_us")
                    && !c.metric().equals("missed_deadlines")) {
                return null;
            }
        }
        long machine = missed - Math.round(jvm);
        if (machine > t.maxMissedDeadlines()) {
            return null;
        }
        return Math.round(jvm) + " of the " + missed + " xruns overlapped a JVM pause (xruns_jvm), not the machine under "
                + "test; the other " + machine + " are within the limit of " + t.maxMissedDeadlines() + ": rerun";
    }

    /** Null when every thread took enough samples to judge, else which one did not. */
    static String fewSamples(ProbeResult r, long expected) {
        if (r.threads().isEmpty()) {
            return "no thread took a sample";
        }
        for (ThreadResult th : r.threads()) {
            long n = th.latency().samples();
            if (n == 0) {
                return "thread " + th.thread() + " took no samples";
            }
            if (expected > 0 && r.complete() && n < expected * SAMPLE_TOLERANCE) {
                return "thread " + th.thread() + " took " + n + " samples of the " + expected + " its duration and"
                        + " interval imply (fewer than " + Math.round(SAMPLE_TOLERANCE * 100) + " %)";
            }
        }
        return null;
    }

    /** Why the run ended early: a -b break (with its sample) or a stop. */
    private static String cutShort(ProbeResult r) {
        rtbox.api.result.BreakTrace b = r.breakTrace();
        if (b == null) {
            return "the run was stopped before its end";
        }
        return "the run stopped at the first wake-up over " + fmt(b.limitNs() / 1000.0) + " us (-b): thread "
                + b.thread() + " woke " + fmt(Math.round(b.latencyNs() / 100.0) / 10.0) + " us late";
    }

    /** Whether a latency threshold was given: the only kind that makes a PASS mean "meets real-time". */
    static boolean hasLatencyThreshold(Thresholds t) {
        return t.maxLatencyUs() >= 0 || t.p99Us() >= 0 || t.p999Us() >= 0 || t.pwcetUs() >= 0;
    }

    private static String failedList(List<Check> checks) {
        StringBuilder b = new StringBuilder();
        for (Check c : checks) {
            if (c.outcome() == Outcome.FAIL) {
                b.append(b.length() == 0 ? "" : "; ").append(c.detail());
            }
        }
        return b.toString();
    }

    private static void check(List<Check> checks, String metric, long threshold, double actual) {
        if (threshold < 0) {
            return;
        }
        boolean pass = actual <= threshold;
        checks.add(new Check(metric, threshold, actual, pass ? Outcome.PASS : Outcome.FAIL,
                metric + " " + fmt(actual) + (pass ? " <= " : " > ") + threshold));
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.1f", v);
    }
}
