package rtbox.mqtt.internal;

import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.LongFunction;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.api.result.RunReport;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Topics;

/**
 * The {@code run} verb: one probe run on the run thread, its progress in tenths and its
 * result numbered without gaps; a run that a crash cut short is reported ABORTED at the
 * next start.
 */
@Component(service = Verbs.class)
public class RunVerbs implements Verbs {

    @Reference
    Runner runner;

    @Override
    public Set<String> verbs() {
        return Set.of("run");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        String refused = station.refuseNew("run");
        if (refused != null) {
            return Reply.conflict(refused);
        }
        String runId = RunJson.string(c, "run", null);
        if (runId != null) {
            String bad = Topics.checkId("run", runId);
            if (bad != null) {
                return Reply.bad(bad);
            }
        } else {
            runId = UUID.randomUUID().toString();
        }
        java.util.List<String> notes = new java.util.ArrayList<>();
        RunRequest request = RunJson.parse(c, "mqtt run " + requestId, notes);
        if (!runner.probes().contains(request.probe())) {
            return Reply.notFound("no probe '" + request.probe() + "' on " + station.appliance() + ": there are "
                    + String.join(", ", new TreeSet<>(runner.probes())));
        }
        runner.check(request);
        String noRoom = station.noRoomFor("run", messageBytes(request));
        if (noRoom != null) {
            return Reply.insufficientStorage(noRoom);
        }
        RunSession session = new RunSession(runId, request.probe(), station.activeFile());
        try {
            session.persist();
        } catch (IOException e) {
            return Reply.failed("cannot record the run in " + station.dataDir() + ": " + e.getMessage());
        }
        String busy = station.activity().claim(session, () -> {
            session.stopAsked = true;
            runner.stop();
        }, () -> progressTick(station, session));
        if (busy != null) {
            return Reply.conflict(busy);
        }
        station.runs().execute(() -> measure(station, session, request));
        station.statusChanged();
        JsonObject body = new JsonObject();
        String appliance = station.appliance();
        body.addProperty("run", runId);
        body.addProperty("progress", Topics.progress(appliance, runId));
        body.addProperty("result", Topics.result(appliance, runId));
        if (!notes.isEmpty()) {
            // Names deprecated by the one run-request shape: still read, and the sender is told.
            com.google.gson.JsonArray n = new com.google.gson.JsonArray();
            notes.forEach(n::add);
            body.add("notes", n);
        }
        return Reply.ok("run " + runId + " started: " + request.probe() + " " + request.parameters()
                + (notes.isEmpty() ? "" : "; " + notes.size() + " deprecated name(s): see notes"), body);
    }

    /**
     * A run's messages, estimated high: the progress messages and the result with its full report,
     * whose histograms are at most 4 bytes a bucket a thread as JSON (usually far less: trailing
     * zeros are cut).
     */
    static long messageBytes(RunRequest request) {
        rtbox.api.RunParameters p = request.parameters();
        long threads = p.cpus == null || p.cpus.length == 0 ? 1 : p.cpus.length;
        return 64 * 1024 + 2 * 4L * p.histogramLimitUs * threads;
    }

    private void measure(Station station, RunSession s, RunRequest request) {
        String appliance = station.appliance();
        sendProgress(station, s, 0);
        String topic = Topics.result(appliance, s.id);
        try {
            RunReport report = runner.run(request, new Runner.ProgressListener() {
                @Override
                public void progress(double fraction) {
                    s.fraction = fraction;
                }

                @Override
                public void measuring(rtbox.api.LiveThread thread) {
                    s.measuring(thread);
                }

                @Override
                public boolean stopRequested() {
                    return s.stopAsked;
                }
            });
            last(station, s, topic, seq -> Payloads.result(appliance, s.id, seq, report));
        } catch (RtboxException e) {
            last(station, s, topic, seq -> Codec.encode(
                    Payloads.failedResult(appliance, s.id, seq, s.probe, Outcome.ERROR, e.getMessage())));
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            // An Error too: without a result the run stayed "busy" for good, every later run got 409 and a
            // stop promised a result that never came. The run's memory is garbage by now.
            last(station, s, topic, seq -> Codec.encode(Payloads.failedResult(appliance, s.id, seq, s.probe,
                    Outcome.ERROR, "the run failed on the appliance: " + e)));
        } finally {
            s.finished();
            station.activity().end(s);
            station.statusChanged();
        }
    }

    /**
     * The run's last message, its result: no progress may be numbered after it (the command
     * thread's progress tick, between the result and the run's end, queued one after the
     * result: a control room saw 11 messages of a run whose result said 10).
     */
    private static void last(Station station, RunSession s, String topic, LongFunction<byte[]> result) {
        synchronized (s) {
            s.done = true;
            station.queueNextPayload(s, topic, result);
        }
    }

    /** A progress message at each new tenth of the run (not every sample). */
    private static void progressTick(Station station, RunSession s) {
        int step = (int) Math.floor(s.fraction * 10);
        if (step > s.lastStep && step < 10) {
            sendProgress(station, s, step);
        }
    }

    private static void sendProgress(Station station, RunSession s, int step) {
        synchronized (s) {
            if (step <= s.lastStep || s.done) {
                return;
            }
            s.lastStep = step;
            String appliance = station.appliance();
            station.queueNext(s, Topics.progress(appliance, s.id),
                    seq -> Payloads.progress(appliance, s.id, seq, s.probe, step / 10.0));
        }
    }

    /** A run that a crash or power loss cut short is reported as aborted, with the next sequence number. */
    @Override
    public void recover(Station station) {
        RunSession r = station.interrupted(RunSession.RUN);
        if (r == null) {
            return;
        }
        String appliance = station.appliance();
        Appliance.LOG.info("run {} was interrupted by a restart: reporting it as aborted", r.id);
        station.queueNext(r, Topics.result(appliance, r.id), seq -> Payloads.failedResult(appliance, r.id, seq,
                r.probe, Outcome.ABORTED,
                "the appliance restarted during the run (crash or power loss): no result was measured"));
        r.finished();
    }
}
