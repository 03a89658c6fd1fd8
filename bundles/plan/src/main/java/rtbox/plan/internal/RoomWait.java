package rtbox.plan.internal;

import java.io.IOException;
import java.time.Instant;

import rtbox.api.RtboxException;
import rtbox.os.AppendLog;

/**
 * Appends a record the plan cannot do without (a measured cell, the plan's end) to the
 * result journal on a disk that may be full: the record is kept in memory and tried again
 * every {@link #RETRY_MS} until there is room. A disk that filled in the middle of a plan
 * lost the running cell's measurement before, and its result went out as ERROR, then again as
 * ABORTED "crash or power loss" under the same sequence number (issue 31). Only the wait of a
 * thread that is interrupted (the plan service stopping) ends without the record, and then the
 * error says what happened: "disk full at T".
 */
final class RoomWait {
    static final long RETRY_MS = 1000;

    private RoomWait() {
    }

    static void append(AppendLog journal, String line) throws RtboxException {
        Instant fullSince = null;
        while (true) {
            try {
                journal.append(line);
                return;
            } catch (IOException e) {
                if (!full(e)) {
                    throw new RtboxException("journal", "cannot append to the result journal " + journal.path() + " ("
                            + e.getClass().getSimpleName() + "); stopping, since a result not in the journal could be lost");
                }
                if (fullSince == null) {
                    fullSince = Instant.now();
                }
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new RtboxException("journal", "disk full at " + fullSince + ": the result journal "
                        + journal.path() + " had no room for the measured result until the plan was stopped");
            }
        }
    }

    /** ENOSPC or EDQUOT, as the JDK words them. */
    static boolean full(IOException e) {
        String m = e.getMessage();
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            m = f.getReason();
        }
        return m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"));
    }
}
