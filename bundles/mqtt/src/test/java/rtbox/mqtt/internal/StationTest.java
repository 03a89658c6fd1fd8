package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.mqtt.protocol.Outcome;

/**
 * The memory a full disk fills (messages the outbox cannot take, kept until it can) is
 * bounded in bytes: replies past the bound are not kept; a run's messages always are, and
 * past the bound the run under way is stopped; no new run starts while any wait; once the
 * disk takes them again every kept message is stored, in order.
 */
class StationTest {
    @TempDir
    Path dir;

    @Test
    void aFullDiskKeepsEveryMeasuredMessageButBoundsTheRestAndStopsTheRun() throws Exception {
        Path box = dir.resolve("outbox");
        Outbox outbox = new Outbox(box, 1L << 30);
        Station station = new Station("a1", null, dir, dir.resolve("plans"), outbox, null, null);
        RunSession run = new RunSession("r1", "p", RunSession.PLAN, dir.resolve("run.active"));
        AtomicInteger stops = new AtomicInteger();
        assertEquals(null, station.activity().claim(run, stops::incrementAndGet, () -> { }));

        // The outbox cannot be written (its folder is a file now): as a full disk.
        Files.delete(box);
        Files.writeString(box, "not a folder");
        byte[] reply = new byte[256 * 1024];
        for (int i = 0; i < 40; i++) { // 10 MiB of replies: 16 of them fit
            station.queue("rtbox/v1/up/a1/reply/" + i, reply);
        }
        assertEquals(16, station.pending());
        assertTrue(station.pendingBytes() <= Station.PENDING_MAX_BYTES, station.pendingBytes() + " bytes");
        assertEquals(0, stops.get(), "replies alone stop nothing");
        String refused = station.refuseNew("run");
        assertNotNull(refused);

        String big = "x".repeat(300 * 1024);
        for (int seq = 1; seq <= 3; seq++) { // a run's messages are kept, even past the bound
            station.queueAt(run, "rtbox/v1/up/a1/runs/r1/result", seq, PlanMessages.failed("a1", "r1", seq, "p", 1,
                    Outcome.ERROR, big));
        }
        assertEquals(19, station.pending());
        assertTrue(station.pendingBytes() > Station.PENDING_MAX_BYTES);
        assertTrue(stops.get() >= 1, "the run under way was not stopped");
        assertEquals(3, run.sequence(), "every number taken once");
        station.queue("rtbox/v1/up/a1/reply/late", new byte[10]);
        assertEquals(19, station.pending(), "past the bound a reply is not kept");
        station.activity().clear();
        assertTrue(station.refuseNew("plan").contains("wait in memory for disk space"), station.refuseNew("plan"));

        // Room again: all kept messages are stored, in order, and new runs may start.
        Files.delete(box);
        Files.createDirectories(box);
        station.retryPending();
        assertEquals(0, station.pending());
        assertEquals(0, station.pendingBytes());
        try (java.util.stream.Stream<Path> files = Files.list(box)) {
            assertEquals(19, files.filter(f -> f.toString().endsWith(".msg")).count());
        }
        assertEquals(null, station.refuseNew("run"));
    }
}
