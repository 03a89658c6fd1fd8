package rtbox.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and context switches of another process from the kernel: the CPU time from the
 * process's CPU-time clock ({@link CpuClock#ofProcess}, in ns, the scheduler's own count),
 * split between user and system in the ratio of utime to stime in {@code stat}, and the
 * switch counters from {@code status}.
 *
 * <p>Why not utime and stime alone: they are in clock ticks (USER_HZ = 100), so a child that
 * ran 7 ms of a 17 ms run read as 0 % of a core. When both are still under one tick the split
 * is unknown and the whole time is counted as system time, where a pipe end spends it.
 */
public final class ProcessUsage {

    private ProcessUsage() {
    }

    /** Usage of /proc/{pid}; throws when the process is gone. */
    public static ThreadUsage of(long pid) throws OsException {
        Path dir = Path.of("/proc", Long.toString(pid));
        try {
            String stat = Files.readString(dir.resolve("stat"));
            // The command name in field 2 may hold spaces; fields after it start past ')'.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            long utimeTicks = Long.parseLong(f[11]);
            long stimeTicks = Long.parseLong(f[12]);
            long vol = 0, invol = 0;
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    vol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    invol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            long total = CpuClock.ofProcess(Math.toIntExact(pid)).nanos();
            if (total < 0) {
                throw new IOException("its CPU-time clock cannot be read: it ended");
            }
            long ticks = utimeTicks + stimeTicks;
            long user = ticks == 0 ? 0 : Math.round((double) total * utimeTicks / ticks);
            return new ThreadUsage(user, total - user, vol, invol);
        } catch (IOException | RuntimeException e) {
            throw new OsException("/proc/" + pid + "/stat", Errno.ESRCH, "cannot read the usage of process " + pid
                    + " from /proc: " + e.getMessage());
        }
    }
}
