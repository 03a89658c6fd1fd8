package rtbox.trace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.api.result.Culprit;
import rtbox.os.Sched;

/**
 * A real trace session on this machine's last CPU: a thread of this JVM at SCHED_FIFO 99
 * spins 5 ms there, and the session names it, with its time, from the kernel's events;
 * the instance is gone after close. Where tracefs cannot be used (not root), the error
 * must say why.
 */
class SessionTest {
    @TempDir
    Path dir;

    @Test
    void namesAThreadThatHeldTheCpuAndRemovesItsInstance() throws Exception {
        int cpu = Sched.configuredCpus() - 1;
        TraceState state = new TraceState(dir.resolve("trace.state"));
        Session s;
        try {
            s = Session.start(state, new int[] {cpu}, SchedPolicy.FIFO, 80, 1024, 65536, 5_000_000L);
        } catch (RtboxException e) {
            // Only a machine that cannot trace may get here, and it must say why.
            assertFalse(root() && Files.isDirectory(TraceFs.DEFAULT), "root with tracefs, yet: " + e.getMessage());
            assertTrue(e.getMessage().contains("tracefs"), e.getMessage());
            return;
        }
        Path instance = TraceFs.mounted().resolve("instances/rtbox-" + ProcessHandle.current().pid());
        // Three spins: on this shared VM another tenant's load may take one of them (the kernel's
        // fair server runs starved normal threads even beside SCHED_FIFO 99); one must be clean.
        long[] windows = new long[6];
        int[] tid = new int[1];
        java.util.concurrent.CountDownLatch spinEnded = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        try {
            assertTrue(Files.isDirectory(instance));
            assertTrue(Files.exists(state.path()), "the state file names the instance while it exists");
            Thread spinner = new Thread(() -> {
                try {
                    Sched.setAffinity(0, cpu);
                    Sched.setScheduler(0, SchedPolicy.FIFO, 99);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                tid[0] = Sched.gettid();
                // The trace knows a priority from the switch that puts a thread on the CPU:
                // sleep once, so that the spin starts with one at FIFO 99.
                for (int k = 0; k < 3; k++) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                    long start = System.nanoTime();
                    long end = start + 5_000_000L;
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    windows[2 * k] = start;
                    windows[2 * k + 1] = System.nanoTime();
                }
                spinEnded.countDown();
                try {
                    // Alive until asked about, as a real culprit usually is (its policy is looked up then).
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "spin-test");
            spinner.setDaemon(true);
            spinner.start();
            spinEnded.await();
            Thread.sleep(50); // fixed: the kernel's buffers take the last switches a moment after (nothing says when)
            s.stop();
            List<List<Culprit>> seen = new java.util.ArrayList<>();
            boolean clean = false;
            for (int k = 0; k < 3; k++) {
                long from = windows[2 * k], to = windows[2 * k + 1];
                List<Culprit> culprits = s.culprits(cpu, from, to, -1);
                seen.add(culprits);
                if (!s.covers(cpu, from, to) || culprits.isEmpty()) {
                    continue;
                }
                Culprit top = culprits.get(0);
                long spun = to - from;
                if (top.name().equals("spin-test") && Math.abs(top.durationNs() - spun) < spun / 20) {
                    clean = true;
                    assertEquals(Culprit.TASK, top.kind());
                    assertEquals(tid[0], top.id());
                    assertEquals(ProcessHandle.current().pid(), top.pid());
                    assertTrue(top.ownJvm());
                    assertEquals("SCHED_FIFO", top.policy());
                    assertEquals(99, top.priority());
                }
            }
            assertTrue(clean, "one of three spins named with its time: " + seen + " " + s.notes());
            assertTrue(s.notes().stream().anyMatch(n -> n.contains("the reader used")), s.notes().toString());
            // Excluding the thread (as the probe's own) leaves it out.
            assertTrue(s.culprits(cpu, windows[0], windows[5], tid[0]).stream().noneMatch(c -> c.id() == tid[0]));
        } finally {
            done.countDown();
            s.close();
        }
        // The instance goes on a thread of its own (off the run's path to its result); the next
        // session waits for it, as this does.
        Session.awaitPendingRemoval();
        assertFalse(Files.exists(instance), "instance removed");
        assertFalse(Files.exists(state.path()), "state file deleted");
    }

    @Test
    void aDeadProcessesInstanceIsRemovedAtTheNextStart() throws Exception {
        Path root = TraceFs.mounted();
        if (root == null) {
            return;
        }
        // An instance named after a process that is gone, recorded in a state file as a killed run leaves it.
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        Path orphan = root.resolve("instances/rtbox-" + p.pid());
        Files.createDirectory(orphan);
        Path file = dir.resolve("trace.state");
        Files.writeString(file, "pid " + p.pid() + "\ninstance " + orphan + "\n");
        List<String> done = new TraceState(file).restoreLeftovers();
        assertFalse(Files.exists(orphan), done.toString());
        assertFalse(Files.exists(file));
        assertTrue(done.get(0).contains("removed the tracefs instance"), done.toString());
    }

    static boolean root() throws java.io.IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
    }

    @Test
    void cpuMaskIsTracefsHex() {
        assertEquals("2", TraceFs.cpuMask(new int[] {1}));
        assertEquals("3", TraceFs.cpuMask(new int[] {0, 1}));
        assertEquals("1,00000001", TraceFs.cpuMask(new int[] {0, 32}));
    }
}
