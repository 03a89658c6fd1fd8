package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.core.Runner;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Status;

/**
 * The verbs about the appliance itself: {@code status}, {@code stop} (of whatever runs) and
 * {@code readiness} (free disk, outbox, probes: whether it can take a run and deliver its
 * result; not the measuring chain's self-test, which is {@link SelftestVerb}).
 */
@Component(service = Verbs.class)
public class StationVerbs implements Verbs {

    @Reference
    Runner runner;

    @Override
    public Set<String> verbs() {
        return Set.of("status", "stop", "readiness");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        switch (verb) {
            case "status": return Reply.ok(Status.ONLINE, Codec.toJson(station.status(Status.ONLINE)));
            case "stop": return stop(c, station);
            default: return readiness(station);
        }
    }

    private static Reply stop(JsonObject c, Station station) throws RtboxException {
        RunSession s = station.activity().current();
        String want = RunJson.string(c, "run", null);
        if (s == null) {
            return Reply.conflict("no run is under way");
        }
        if (want != null && !want.equals(s.id)) {
            return Reply.notFound("run " + want + " is not under way: run " + s.id + " is");
        }
        if (!station.activity().stop()) {
            return Reply.conflict("no run is under way: run " + s.id + " has just ended");
        }
        JsonObject body = new JsonObject();
        body.addProperty("run", s.id);
        if (s.plan()) {
            return Reply.ok("stopping plan " + s.probe + " (run " + s.id + "): the cell under way ends early and"
                    + " its result follows, then the plan's result; no further cell starts", body);
        }
        return Reply.ok("stopping run " + s.id + ": its result follows, marked incomplete", body);
    }

    private Reply readiness(Station station) {
        JsonObject body = new JsonObject();
        TreeMap<String, String> problems = new TreeMap<>();
        if (runner.probes().isEmpty()) {
            problems.put("probes", "no probe is registered");
        }
        Outbox outbox = station.outbox();
        try {
            long free = Files.getFileStore(station.dataDir()).getUsableSpace();
            body.addProperty("data_free_bytes", free);
            if (free < outbox.maxBytes()) {
                problems.put("disk", station.dataDir() + " has " + free + " bytes free, less than the outbox limit "
                        + outbox.maxBytes());
            }
        } catch (IOException e) {
            problems.put("disk", "cannot read the free space of " + station.dataDir() + ": " + e.getMessage());
        }
        body.addProperty("outbox_messages", outbox.size());
        body.addProperty("outbox_bytes", outbox.bytes());
        body.add("probes", Payloads.GSON.toJsonTree(new TreeSet<>(runner.probes())));
        body.addProperty("cpus", MachineParts.cpusOnline());
        body.add("block_devices", MachineParts.blockDevices(java.nio.file.Path.of("/sys/block")));
        body.add("problems", Payloads.GSON.toJsonTree(problems));
        return problems.isEmpty() ? Reply.ok("ready: disk, outbox and probes", body)
                : new Reply(500, "not ready: " + String.join("; ", problems.values()), body);
    }
}
