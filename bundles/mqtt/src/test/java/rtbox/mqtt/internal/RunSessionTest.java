package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.mqtt.protocol.Topics;

/**
 * A run's sequence number is written to its file ({@code run.active}) only before a message
 * leaves the outbox, not when it is queued: until then the queued message carries it. A
 * crash (the outbox and the station opened again on the same folder, nothing in memory
 * kept) at any point still gives the ABORTED result a number no message of the run had.
 */
class RunSessionTest {
    @TempDir
    Path dir;

    private Station station(Outbox outbox) {
        return new Station("a1", null, dir, dir.resolve("plans"), outbox, null, null);
    }

    private Outbox outbox() throws Exception {
        return new Outbox(dir.resolve("outbox"), 1L << 30);
    }

    private long recorded() throws Exception {
        return Long.parseLong(Files.readString(dir.resolve("run.active")).split("\n")[2]);
    }

    private static void progress(Station s, RunSession run) {
        s.queueNext(run, Topics.progress("a1", run.id), seq -> Payloads.progress("a1", run.id, seq, run.probe, 0.5));
    }

    @Test
    void theFileRecordsANumberBeforeItsMessageLeavesAndARestartContinuesAfterTheOutbox() throws Exception {
        Outbox outbox = outbox();
        Station s = station(outbox);
        RunSession run = new RunSession("r1", "timer", dir.resolve("run.active"));
        run.persist();
        progress(s, run);
        progress(s, run);
        progress(s, run);
        assertEquals(3, run.sequence());
        assertEquals(0, recorded(), "queued messages carry their numbers: nothing forced on the way out");
        long first = outbox.ids().get(0);
        outbox.delivered(first);
        assertEquals(1, recorded(), "a message does not leave before its number is in the file");
        outbox.quarantine(outbox.ids().get(0));
        assertEquals(2, recorded(), "nor when it is set aside");

        // A crash: the file says 2, the outbox holds message 3.
        Outbox again = outbox();
        Station restarted = station(again);
        restarted.loadInterrupted();
        assertEquals(3, recorded(), "brought up to the outbox before it drains");
        // The restarted link sends message 3 (no hook of the old process runs) and the appliance
        // dies again before the ABORTED result is queued: the file still knows 3.
        again.delivered(again.ids().get(0));
        Station third = station(outbox());
        third.loadInterrupted();
        RunSession aborted = third.interrupted(RunSession.RUN);
        assertNotNull(aborted);
        assertEquals(3, aborted.sequence(), "ABORTED is numbered 4, after every message sent");
    }

    @Test
    void aRunThatEndedLeavesNoFileOnceItsResultLeavesAndNoAbortedAfterARestart() throws Exception {
        Outbox outbox = outbox();
        Station s = station(outbox);
        RunSession run = new RunSession("r1", "timer", dir.resolve("run.active"));
        run.persist();
        progress(s, run);
        progress(s, run); // the run's last message
        run.finished();
        assertFalse(Files.exists(dir.resolve("run.active")));
        for (long id : outbox.ids()) {
            outbox.delivered(id);
        }
        assertFalse(Files.exists(dir.resolve("run.active")), "a message leaving after the end writes no file again");
        Station restarted = station(outbox());
        restarted.loadInterrupted();
        assertNull(restarted.interrupted(RunSession.RUN));
    }

    @Test
    void aResultThatLeavesBeforeTheRunEndsIsRecordedThenTheFileGoes() throws Exception {
        Outbox outbox = outbox();
        Station s = station(outbox);
        RunSession run = new RunSession("r1", "timer", dir.resolve("run.active"));
        run.persist();
        progress(s, run);
        outbox.delivered(outbox.ids().get(0)); // the io thread was quicker than the run thread
        assertEquals(1, recorded());
        run.finished();
        assertFalse(Files.exists(dir.resolve("run.active")));
    }

    /** An appliance upgraded after a crash: the older version's file recorded every number queued. */
    @Test
    void aFileOfTheEarlierVersionThatRecordedEveryNumberStillCounts() throws Exception {
        Files.writeString(dir.resolve("run.active"), "r1\ntimer\n7\nrun\n");
        Station s = station(outbox());
        s.loadInterrupted();
        RunSession aborted = s.interrupted(RunSession.RUN);
        assertEquals(7, aborted.sequence());
        assertEquals(7, recorded());
    }
}
