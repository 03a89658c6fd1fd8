package rtbox.mqtt.internal;

import java.util.Set;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.core.Runner;
import rtbox.core.Selftest;

/**
 * {@code selftest}: the measuring chain's self-test ({@link Selftest}, what {@code rtbox
 * selftest} runs first): a known stall injected on the probe's CPU, which the timer probe
 * must find and the runner attribute to the disturber. Answered with its figures; 500
 * when the chain is not proven. It runs on the command thread (about {@code duration_s}
 * plus 0.5 s of warm-up), so no run or plan can start meanwhile; while one is under way it
 * is refused (409), since it would disturb that run and be disturbed by it.
 */
@Component(service = Verbs.class)
public class SelftestVerb implements Verbs {
    static final int DEFAULT_SECONDS = 2;
    static final int MAX_SECONDS = 60;
    /** Disturbance D and period P: 2 ms every 100 ms, as rtbox selftest. */
    static final long SPIN_US = 2000, EVERY_MS = 100;

    @Reference
    Runner runner;

    @Override
    public Set<String> verbs() {
        return Set.of("selftest");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        int seconds = (int) RunJson.whole(c, "duration_s", DEFAULT_SECONDS, 1, MAX_SECONDS);
        int cpus = rtbox.os.Sched.configuredCpus();
        int configured = station.config().selftestCpu();
        int cpu = (int) RunJson.whole(c, "cpu", configured >= 0 && configured < cpus ? configured : cpus - 1, 0,
                cpus - 1);
        RunSession s = station.activity().current();
        if (s != null) {
            return Reply.conflict("no self-test now: " + Activity.busy(s));
        }
        Selftest.Outcome o = Selftest.run(runner, cpu, seconds * 1_000_000_000L, SPIN_US, EVERY_MS,
                "selftest (MQTT)");
        JsonObject body = figures(o);
        if (o.pass()) {
            return Reply.ok(String.format(java.util.Locale.ROOT, "self-test passed: %d of %d injected stalls of %d us"
                    + " found on CPU %d and attributed to the disturber, median %d us (error %+d us)", o.found(),
                    o.expected(), o.injectedUs(), o.cpu(), o.medianUs(), o.errorUs()), body);
        }
        return new Reply(500, "self-test failed: " + o.reason(), body);
    }

    /** The reply's body: what was injected and what was found (docs/mqtt.md). */
    static JsonObject figures(Selftest.Outcome o) {
        JsonObject b = new JsonObject();
        b.addProperty("pass", o.pass());
        b.addProperty("cpu", o.cpu());
        b.addProperty("duration_s", o.durationNs() / 1e9);
        b.addProperty("injected_us", o.injectedUs());
        b.addProperty("every_ms", o.everyMs());
        b.addProperty("expected", o.expected());
        b.addProperty("found", o.found());
        b.addProperty("cause", o.found() > 0 ? o.cause() : null);
        b.addProperty("median_us", o.medianUs());
        b.addProperty("min_us", o.minUs());
        b.addProperty("max_us", o.maxUs());
        b.addProperty("error_us", o.errorUs());
        b.addProperty("wakeup_p50_us", o.wakeupP50Us());
        b.addProperty("noise_spikes", o.noiseSpikes());
        b.addProperty("noise_max_us", o.noiseMaxUs());
        b.addProperty("reason", o.reason());
        return b;
    }
}
