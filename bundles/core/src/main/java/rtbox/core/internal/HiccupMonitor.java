package rtbox.core.internal;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import rtbox.api.SchedPolicy;
import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.Spike;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.os.MonotonicClock;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * jHiccup's idea beside every probe run: a Java thread that sleeps 1 ms at a time
 * and records how late it wakes, plus the JVM's garbage-collection notifications.
 * A stall that this thread sees at the same moment as the probe, from another CPU,
 * was not the probe's CPU alone: together with the safepoint log it tells a JVM
 * pause from a kernel stall. It runs just below the probe's RT priority, so ordinary
 * load does not delay it, and off the probe's CPUs; where the probe has every CPU the
 * thread does not run (the GC notifications are still taken).
 */
final class HiccupMonitor implements NotificationListener {
    private static final long PERIOD_NS = 1_000_000;
    private static final long STALL_NS = 500_000;

    private final LatencyRecorder recorder = new LatencyRecorder(-1, 10_000, 0);
    private final List<JvmStall> gcs = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean stop;
    private volatile long startNanos;
    private volatile boolean offProbeCpus;
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());
    /** Collections done before the start, by collector: their notifications may still arrive, and are not this run's. */
    private final java.util.Map<String, Long> collectionsBefore = new java.util.concurrent.ConcurrentHashMap<>();

    HiccupMonitor(SchedPolicy probePolicy, int probePriority, int[] probeCpus) {
        this.thread = new Thread(() -> loop(probePolicy, probePriority, probeCpus), "rtbox-hiccup");
        this.thread.setDaemon(true);
    }

    void start(long startNanos) {
        this.startNanos = startNanos;
        recorder.reset(startNanos, STALL_NS);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectionsBefore.put(gc.getName(), gc.getCollectionCount());
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                ((NotificationEmitter) gc).addNotificationListener(this, null, null);
            }
        }
        thread.start();
    }

    /** Stops the thread and the GC listener; returns once the thread is gone. */
    void stop() {
        stop = true;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                try {
                    ((NotificationEmitter) gc).removeNotificationListener(this);
                } catch (javax.management.ListenerNotFoundException e) {
                    // already gone
                }
            }
        }
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop(SchedPolicy probePolicy, int probePriority, int[] probeCpus) {
        try {
            int[] others = otherCpus(probeCpus);
            if (others.length == 0) {
                // Every CPU is the probe's (the board has one): a thread waking 1000 times a second
                // just below the probe's priority would put its wake-ups on the probe's CPU, which
                // cyclictest does not have (in the Pentium III guest the timer's p50 was 14-27 us
                // later than cyclictest's beside it), and what it saw there would not tell a
                // machine-wide stall anyway. JVM pauses still come from the safepoint log and the
                // GC notifications.
                return;
            }
            Sched.setAffinity(0, others);
            offProbeCpus = true;
            Sched.setTimerSlackNanos(1);
            if (probePolicy.isRealtime()) {
                Sched.setScheduler(0, SchedPolicy.FIFO, Math.max(1, probePriority - 1));
            }
        } catch (OsException e) {
            notes.add("hiccup monitor runs with default scheduling: " + e.getMessage());
        }
        MonotonicClock clock = new MonotonicClock();
        long next = System.nanoTime() + PERIOD_NS;
        while (!stop) {
            clock.sleepUntil(next);
            long now = System.nanoTime();
            recorder.record(now - next, now);
            next = now + PERIOD_NS;
        }
    }

    private static int[] otherCpus(int[] probeCpus) throws OsException {
        int[] allowed = Sched.getAffinity(0);
        return java.util.Arrays.stream(allowed)
                .filter(c -> java.util.Arrays.stream(probeCpus).noneMatch(p -> p == c)).toArray();
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!"com.sun.management.gc.notification".equals(n.getType())) {
            return;
        }
        try {
            CompositeData info = (CompositeData) n.getUserData();
            CompositeData gcInfo = (CompositeData) info.get("gcInfo");
            if ((Long) gcInfo.get("id") <= collectionsBefore.getOrDefault((String) info.get("gcName"), 0L)) {
                return;
            }
            long durationMs = (Long) gcInfo.get("duration");
            // GcInfo's startTime counts from the JVM's management start-up, not from the uptime
            // the RuntimeMXBean gives (tens of ms apart: a GC placed by it lands around a
            // different moment). The notification is sent as the GC ends, so the GC is placed
            // just before its arrival, widened by a millisecond for the truncation.
            long end = System.nanoTime();
            long duration = (durationMs + 1) * 1_000_000;
            gcs.add(new JvmStall(end - duration - startNanos, duration, "gc",
                    info.get("gcName") + " (" + info.get("gcCause") + "), ms resolution"));
        } catch (RuntimeException e) {
            notes.add("could not read a GC notification: " + e);
        }
    }

    /** True when the monitor ran on CPUs the probe did not use (its stalls then are not the probe's CPU). */
    boolean offProbeCpus() {
        return offProbeCpus;
    }

    Histogram histogram() {
        return recorder.histogram();
    }

    /** Stalls this thread saw (late by over 0.5 ms), as offsets from the run's start. */
    List<JvmStall> hiccups() {
        List<JvmStall> list = new ArrayList<>();
        for (Spike s : recorder.spikes()) {
            list.add(new JvmStall(s.offsetNs() - s.latencyNs(), s.latencyNs(), "hiccup",
                    "monitor thread woke " + s.latencyNs() / 1000 + " us late"));
        }
        return list;
    }

    List<JvmStall> gcs() {
        synchronized (gcs) {
            return new ArrayList<>(gcs);
        }
    }

    List<String> notes() {
        synchronized (notes) {
            return new ArrayList<>(notes);
        }
    }
}
