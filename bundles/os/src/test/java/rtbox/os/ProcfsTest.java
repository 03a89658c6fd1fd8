package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class ProcfsTest {

    @Test
    void anIntegerSysctlComesBackWhole() throws Exception {
        // Files.readString reads these in pieces and the kernel ends them after the first byte.
        String v = Procfs.kernel("sched_rt_period_us");
        assertTrue(v.matches("\\d{4,}"), v);
        assertEquals(v, Procfs.read("/proc/sys/kernel/sched_rt_period_us"));
    }

    @Test
    void ownThreadHasTheProcessAsItsGroupAndANiceValue() throws Exception {
        int pid = (int) ProcessHandle.current().pid();
        int tid = Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        assertEquals(pid, Procfs.tgid(tid));
        int nice = Procfs.nice(tid);
        assertTrue(nice >= -20 && nice <= 19, "nice " + nice);
        assertEquals(0, Procfs.tgid(Integer.MAX_VALUE), "a thread that is not there");
    }

    @Test
    void aMissingFileIsAnIOExceptionNamingIt() {
        IOException e = assertThrows(IOException.class, () -> Procfs.kernel("no_such_setting"));
        assertTrue(e.getMessage().contains("/proc/sys/kernel/no_such_setting"), e.getMessage());
    }

    @Test
    void theMountTableHasProc() throws Exception {
        assertTrue(Procfs.mounts().stream().anyMatch(l -> l.split(" ")[1].equals("/proc")));
    }
}
