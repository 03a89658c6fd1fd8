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
    void theTgidLineIsFoundInTheHeadOfAStatusFile() {
        byte[] status = "Name:\tcc1 Tgid: 7\nUmask:\t0022\nState:\tR (running)\nTgid:\t4711\nNgid:\t0\n"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(4711, Procfs.tgidIn(status, status.length), "the line's own Tgid, not one inside the name");
        assertEquals(0, Procfs.tgidIn(status, 40), "cut before the line: none");
        byte[] none = "Name:\tx\nTgid:\t\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(0, Procfs.tgidIn(none, none.length));
    }

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
    void tgidsFindsTheGroupOfEveryThreadAndAllocatesNothing() throws Exception {
        int pid = (int) ProcessHandle.current().pid();
        Procfs.Tgids tgids = new Procfs.Tgids();
        java.util.List<Integer> tids = new java.util.ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            tasks.forEach(t -> tids.add(Integer.parseInt(t.getFileName().toString())));
        }
        for (int tid : tids) {
            assertEquals(pid, tgids.of(tid), "thread " + tid); // one digit count or another
        }
        assertEquals(1, tgids.of(1), "init is its own group");
        assertEquals(0, tgids.of(Integer.MAX_VALUE), "a thread that is not there");
        assertEquals(0, tgids.of(0));
        var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int first = tids.get(0);
        long sum = 0;
        for (int i = 0; i < 2000; i++) { // compiled
            sum += tgids.of(first);
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 2000; i++) {
            sum += tgids.of(i % 2 == 0 ? first : Integer.MAX_VALUE);
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertEquals(3000L * pid, sum, "2,000 then 1,000 lookups of our own thread");
        // Procfs.tgid made about 1 kB a lookup: 2 MB here. A few hundred bytes of class loading may land inside.
        assertTrue(allocated < 2000, allocated + " bytes allocated in 2,000 lookups");
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

    @Test
    void aThreadsSchedstatCountsItsCpuTimeAndSaysWhenItEnded() throws Exception {
        int[] tid = new int[1];
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch spun = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            try {
                tid[0] = Sched.gettid();
                started.countDown();
                go.await();
                // 150 ms of CPU time by the thread's own count (getrusage), however busy the machine
                long from = ThreadUsage.ofCurrentThread().userNs + ThreadUsage.ofCurrentThread().systemNs;
                ThreadUsage u;
                do {
                    u = ThreadUsage.ofCurrentThread();
                } while (u.userNs + u.systemNs - from < 150_000_000L);
                spun.countDown();
                done.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        spinner.start();
        started.await();
        try (Procfs.Schedstat s = Procfs.Schedstat.open(0, tid[0])) {
            assertEquals(tid[0], s.tid());
            long first = s.runtimeNs();
            assertTrue(first > 0, "" + first);
            go.countDown();
            spun.await();
            long second = s.runtimeNs();
            // getrusage counts in ticks where schedstat counts ns: allow a tick or two
            assertTrue(second - first >= 120_000_000L, "spun 150 ms: " + first + " -> " + second);
            long whole = Procfs.schedstatRuntimeNs(tid[0]);
            assertTrue(whole >= second, whole + " >= " + second);
            done.countDown();
            spinner.join();
            // Ended: the open file reads the final count until the task is reaped, then fails.
            long last = s.runtimeNs();
            assertTrue(last == -1 || last >= whole, last + " >= " + whole);
            // join() returns when the Java thread is done; the kernel's thread may take a moment more
            boolean gone = false;
            for (int i = 0; i < 200 && !gone; i++) {
                try {
                    Procfs.schedstatRuntimeNs(tid[0]);
                    Thread.sleep(10);
                } catch (IOException e) {
                    gone = true;
                }
            }
            assertTrue(gone, "thread " + tid[0] + " left /proc/self/task");
        }
        assertThrows(IOException.class, () -> Procfs.schedstatRuntimeNs(Integer.MAX_VALUE));
    }
}
