package rtbox.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and context switches of another process (or thread) from /proc: utime and
 * stime from {@code stat} (in clock ticks, USER_HZ = 100 on Linux), the switch
 * counters from {@code status}.
 */
public final class ProcessUsage {
    private static final long NS_PER_TICK = 10_000_000L;

    private ProcessUsage() {
    }

    /** Usage of /proc/{pid}; throws when the process is gone. */
    public static ThreadUsage of(long pid) throws OsException {
        Path dir = Path.of("/proc", Long.toString(pid));
        try {
            String stat = Files.readString(dir.resolve("stat"));
            // The command name in field 2 may hold spaces; fields after it start past ')'.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            long utime = Long.parseLong(f[11]) * NS_PER_TICK;
            long stime = Long.parseLong(f[12]) * NS_PER_TICK;
            long vol = 0, invol = 0;
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    vol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    invol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return new ThreadUsage(utime, stime, vol, invol);
        } catch (IOException | RuntimeException e) {
            throw new OsException("/proc/" + pid + "/stat", Errno.ESRCH, "cannot read the usage of process " + pid
                    + " from /proc: " + e.getMessage());
        }
    }
}
