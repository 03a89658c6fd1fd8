package rtbox.plan.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunEvent;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;

/**
 * What the cell's policy saw, put into the cell's report: emulated ISO's demotions and
 * promotions (reported by the tuner at close, at the times they happened) become events on
 * the run's timeline; an xrun or a spike inside a demoted stretch is labelled so (a spike's
 * cause becomes {@link #DEMOTED}, unless it was a JVM pause, which stays one); and the
 * tuner's {@code iso.*} figures join the probe's figures ({@code iso_demotions},
 * {@code iso_promotions}, {@code iso_demoted_ms}, {@code iso_mean_share_pct},
 * {@code iso_peak_share_pct}, and {@code xruns_demoted}: the xruns inside demoted stretches).
 */
final class PolicyEvents {
    static final String DEMOTED = rtbox.api.result.SpikeCause.ISO_DEMOTION.label();
    private static final String[][] FIGURES = {{"iso.demotions", "iso_demotions"}, {"iso.promotions", "iso_promotions"},
        {"iso.demoted_ms", "iso_demoted_ms"}, {"iso.mean_share_pct", "iso_mean_share_pct"},
        {"iso.peak_share_pct", "iso_peak_share_pct"}};

    /** An event a policy reported, at its System.nanoTime(). */
    record Timed(long nanoTime, String kind, String detail) {
    }

    private PolicyEvents() {
    }

    static RunReport merge(RunReport report, List<Timed> policyEvents, Map<String, String> changes) {
        if (report == null) {
            return null;
        }
        ProbeResult r = report.result();
        long start = r.startNanos();
        List<RunEvent> iso = new ArrayList<>();
        for (Timed t : policyEvents) {
            if (t.kind().startsWith("iso.")) {
                iso.add(new RunEvent(t.nanoTime() - start, t.kind(), t.detail()));
            }
        }
        Map<String, Double> figures = new LinkedHashMap<>(r.figures());
        for (String[] f : FIGURES) {
            String v = changes.get(f[0]);
            if (v != null) {
                try {
                    figures.put(f[1], Double.parseDouble(v));
                } catch (NumberFormatException e) {
                    // not a number: it stays in the cell's changes only
                }
            }
        }
        if (iso.isEmpty() && figures.equals(r.figures())) {
            return report;
        }
        iso.sort(Comparator.comparingLong(RunEvent::offsetNs));
        List<long[]> stretches = stretches(iso);
        List<RunEvent> events = new ArrayList<>();
        long xrunsDemoted = 0;
        for (RunEvent e : report.events()) {
            long[] s = e.kind().equals("xrun") ? inside(stretches, e.offsetNs()) : null;
            if (s != null) {
                xrunsDemoted++;
                events.add(new RunEvent(e.offsetNs(), e.kind(), e.detail() + " (inside an ISO demotion from "
                        + seconds(s[0]) + ")"));
            } else {
                events.add(e);
            }
        }
        events.addAll(iso);
        events.sort(Comparator.comparingLong(RunEvent::offsetNs));
        if (!iso.isEmpty() && figures.containsKey("xruns")) {
            figures.put("xruns_demoted", (double) xrunsDemoted);
        }
        List<ThreadResult> threads = new ArrayList<>();
        for (ThreadResult t : r.threads()) {
            List<Spike> spikes = new ArrayList<>();
            for (Spike sp : t.spikes()) {
                long[] s = inside(stretches, sp.offsetNs());
                spikes.add(s == null || sp.kind() == rtbox.api.result.SpikeCause.JVM_PAUSE ? sp : sp.withCause(DEMOTED, "inside an ISO demotion "
                        + "from " + seconds(s[0]) + (sp.cause().isEmpty() ? "" : "; also seen: " + sp.cause()
                        + (sp.detail().isEmpty() ? "" : " (" + sp.detail() + ")"))));
            }
            threads.add(t.withSpikes(spikes));
        }
        ProbeResult result = new ProbeResult(r.probe(), r.parameters(), r.clock(), r.startNanos(), r.durationNs(),
                r.complete(), threads, figures, r.notes(), r.breakTrace());
        return new RunReport(report.schema(), report.runId(), report.startedEpochMs(), report.endedEpochMs(),
                report.command(), result, report.jvmHiccups(), report.jvmStalls(), report.workloads(), events,
                report.system(), report.verdict(), report.pwcet());
    }

    /** Demoted stretches [from, to): from each demotion to the next promotion (or for good). */
    static List<long[]> stretches(List<RunEvent> sorted) {
        List<long[]> list = new ArrayList<>();
        long from = -1;
        for (RunEvent e : sorted) {
            if (e.kind().equals("iso.demote") && from < 0) {
                from = e.offsetNs();
            } else if (e.kind().equals("iso.promote") && from >= 0) {
                list.add(new long[] {from, e.offsetNs()});
                from = -1;
            }
        }
        if (from >= 0) {
            list.add(new long[] {from, Long.MAX_VALUE});
        }
        return list;
    }

    private static long[] inside(List<long[]> stretches, long at) {
        for (long[] s : stretches) {
            if (at >= s[0] && at < s[1]) {
                return s;
            }
        }
        return null;
    }

    private static String seconds(long offsetNs) {
        return String.format(Locale.ROOT, "%.3f s", offsetNs / 1e9);
    }
}
