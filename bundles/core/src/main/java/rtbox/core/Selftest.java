package rtbox.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SpikeCause;
import rtbox.api.result.ThreadResult;

/**
 * The measuring chain's self-test, in-process part: a disturber thread at SCHED_FIFO 90
 * on the probe's CPU spins for D us every P ms; the timer probe (FIFO 80, 100 us interval,
 * so a spin always covers a deadline near its start) must see about duration/P spikes of
 * about D, attributed by the runner to the disturber. Spikes from the machine's own noise
 * are counted apart. One rule for both front ends: {@code rtbox selftest} and the
 * appliance's MQTT {@code selftest} verb (the record's self-test) call this class.
 *
 * @since 2.2
 */
public final class Selftest {
    /** What the disturber's spikes are attributed to when the chain works. */
    public static final String CAUSE = "workload: disturber";

    private Selftest() {
    }

    /**
     * What the self-test injected and found.
     *
     * @param cpu the CPU disturbed and measured
     * @param injectedUs the disturbance D, microseconds
     * @param everyMs its period P, milliseconds
     * @param durationNs the measuring time
     * @param expected the disturbances expected in that time (duration / P)
     * @param found spikes the runner attributed to the disturber
     * @param medianUs the attributed spikes' median latency
     * @param minUs the smallest of them
     * @param maxUs the largest of them
     * @param errorUs detection error: the median found minus the injected D, in whole microseconds
     * @param wakeupP50Us the probe's median wake-up latency (the floor a spike sits on)
     * @param noiseSpikes spikes not attributed to the disturber (the machine's own)
     * @param noiseMaxUs the largest of them
     * @param pass whether the chain is proven: the count within 10 % (at least 2) and the median within 10 %
     * @param reason why not, when it is not ("" when it passed)
     */
    public record Outcome(int cpu, long injectedUs, long everyMs, long durationNs, long expected, int found,
            long medianUs, long minUs, long maxUs, long errorUs, long wakeupP50Us, long noiseSpikes, long noiseMaxUs,
            boolean pass, String reason) {

        /** The attributed cause every found spike had. */
        public String cause() {
            return CAUSE;
        }

        /** The two lines {@code rtbox selftest} prints (ITs read them). */
        public List<String> lines() {
            List<String> l = new ArrayList<>();
            l.add(String.format(Locale.ROOT, "seen: %d spikes attributed to the disturber (expected about %d),"
                    + " median %d us, range %d..%d us (injected %d us; wake-up p50 %d us)", found, expected, medianUs,
                    minUs, maxUs, injectedUs, wakeupP50Us));
            l.add(String.format(Locale.ROOT, "machine's own noise: %d other spikes, largest %d us", noiseSpikes,
                    noiseMaxUs));
            return l;
        }
    }

    /** The request the self-test runs: the timer probe at FIFO 80 on {@code cpu} beside the disturber. */
    public static RunRequest request(int cpu, long durationNs, long spinUs, long everyMs, String label)
            throws RtboxException {
        RunParameters p = RunParameters.builder().intervalUs(100).policy(SchedPolicy.FIFO).priority(80).cpus(cpu)
                .durationNs(durationNs).warmupNs(500_000_000L).build();
        return new RunRequest("timer", p, Thresholds.NONE, label, List.of(LoadSpec.parse("disturber:cpu=" + cpu
                + ",priority=90,spin-us=" + spinUs + ",every-ms=" + everyMs)));
    }

    /** Runs the self-test through {@code runner} (blocking for about {@code durationNs} plus 0.5 s warm-up). */
    public static Outcome run(Runner runner, int cpu, long durationNs, long spinUs, long everyMs, String label)
            throws RtboxException {
        RunReport r = runner.run(request(cpu, durationNs, spinUs, everyMs, label), f -> { });
        return judge(r, cpu, spinUs * 1000, everyMs * 1_000_000, durationNs);
    }

    /** Judges a self-test's report: a pure function of the report and what was injected. */
    public static Outcome judge(RunReport r, int cpu, long spinNs, long periodNs, long durationNs) {
        long expected = durationNs / periodNs;
        List<Long> injected = new ArrayList<>();
        long noise = 0, noiseMax = 0, p50 = 0;
        for (ThreadResult t : r.result().threads()) {
            p50 = Math.max(p50, t.latency().p50Ns());
            for (Spike s : t.spikes()) {
                if (s.kind() == SpikeCause.WORKLOAD && s.detail().startsWith("disturber")) {
                    injected.add(s.latencyNs());
                } else {
                    noise++;
                    noiseMax = Math.max(noiseMax, s.latencyNs());
                }
            }
        }
        injected.sort(null);
        long median = injected.isEmpty() ? 0 : injected.get(injected.size() / 2);
        long tolerance = Math.max(2, expected / 10);
        String reason = "";
        if (Math.abs(injected.size() - expected) > tolerance) {
            reason = "saw " + injected.size() + " disturber spikes, expected " + expected + " +/- " + tolerance;
        } else if (median < spinNs * 9 / 10 || median > spinNs * 11 / 10 + p50) {
            reason = "the disturber spikes' median " + median / 1000 + " us is not within 10% of the injected "
                    + spinNs / 1000 + " us (plus the wake-up floor " + p50 / 1000 + " us)";
        }
        return new Outcome(cpu, spinNs / 1000, periodNs / 1_000_000, durationNs, expected, injected.size(),
                median / 1000, injected.isEmpty() ? 0 : injected.get(0) / 1000,
                injected.isEmpty() ? 0 : injected.get(injected.size() - 1) / 1000,
                injected.isEmpty() ? 0 : median / 1000 - spinNs / 1000, p50 / 1000, noise, noiseMax / 1000,
                reason.isEmpty(), reason);
    }
}
