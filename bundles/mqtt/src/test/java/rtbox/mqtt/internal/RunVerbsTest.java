package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.api.result.RunReport;
import rtbox.core.LoadSpec;
import rtbox.core.Runner.ProgressListener;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.mqtt.protocol.Topics;

/**
 * A run that dies of an Error on the run thread (the recorder's OutOfMemoryError with a
 * million-bucket histogram on 8 CPUs) ends with an ERROR result, and the appliance is free
 * for the next run: before, no result came, the status said busy for good and every later
 * run got 409.
 */
class RunVerbsTest {
    @TempDir
    Path dir;
    private final ExecutorService runs = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() {
        runs.shutdownNow();
    }

    @Test
    void anOutOfMemoryErrorOnTheRunThreadGivesAnErrorResultAndFreesTheAppliance() throws Exception {
        Outbox outbox = new Outbox(dir.resolve("outbox"), 1 << 20);
        Station station = new Station("a1", null, dir, dir.resolve("plans"), outbox, runs, null);
        RunVerbs verbs = new RunVerbs();
        verbs.runner = new Runner() {
            @Override
            public Set<String> probes() {
                return Set.of("timer");
            }

            @Override
            public void check(RunRequest request) {
            }

            @Override
            public RunReport run(RunRequest request, ProgressListener progress) {
                throw new OutOfMemoryError("Java heap space");
            }

            @Override
            public Set<String> workloads() {
                return Set.of();
            }

            @Override
            public Map<String, Double> load(LoadSpec load, long durationNs, ProgressListener progress) {
                return Map.of();
            }

            @Override
            public void stop() {
            }
        };
        JsonObject cmd = JsonParser.parseString("{\"probe\":\"timer\",\"run\":\"r1\",\"parameters\":"
                + "{\"duration\":\"1s\"}}").getAsJsonObject();
        assertEquals(200, verbs.execute("run", cmd, "q1", station).code());
        runs.submit(() -> { }).get(10, TimeUnit.SECONDS);
        java.util.List<Outbox.Entry> all = outbox.all();
        Outbox.Entry result = all.stream().filter(e -> e.topic().equals(Topics.result("a1", "r1")))
                .findFirst().orElseThrow(() -> new AssertionError("no result: " + all));
        JsonObject r = JsonParser.parseString(new String(result.payload(), StandardCharsets.UTF_8)).getAsJsonObject();
        assertEquals("ERROR", r.get("verdict").getAsString(), r.toString());
        assertTrue(r.toString().contains("OutOfMemoryError"), r.toString());
        assertNull(station.refuseNew("run"), "still busy after the run died");
    }
}
