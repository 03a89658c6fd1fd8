package rtbox.probe.rtc.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import rtbox.api.Probe;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ProbeResult;
import rtbox.core.toolkit.ParameterChecks;
import rtbox.api.result.ThreadResult;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.os.Errno;
import rtbox.os.MemoryLock;
import rtbox.os.OsException;
import rtbox.os.RtcDevice;
import rtbox.os.Sched;

/**
 * The RTC periodic-interrupt probe (seed 002): enables the RTC's periodic interrupt at a
 * power-of-two rate and reads /dev/rtc in a loop at the policy asked. Its histogram is
 * the inter-arrival time of the reads (CLOCK_MONOTONIC); a second histogram counts the
 * interrupts each read reports as missed.
 *
 * <p>Options: {@code rate} (Hz, 2..8192, a power of two; default 1024), {@code device}
 * (default /dev/rtc, then /dev/rtc0). Without -l or -D it reads for 5 s.
 */
@Component(service = Probe.class, property = Probe.NAME + "=rtc")
public class RtcProbe implements Probe {
    /** Missed-interrupt histogram: reads with 0..MISSED_BUCKETS-1 missed, then an overflow bucket. */
    static final int MISSED_BUCKETS = 16;
    static final String[] DEFAULT_DEVICES = {"/dev/rtc", "/dev/rtc0"};
    static final String HRTIMER_NOTE = "recent kernels (rtc-core since 2.6.38) emulate the RTC periodic interrupt "
            + "with an hrtimer, so this measures hrtimer delivery to a reader, not the MC146818's own IRQ 8 as on 2.6.11";

    static long rate(RunParameters p) throws RtboxException {
        String v = p.option("rate", "1024");
        long hz;
        try {
            hz = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new RtboxException("rate", "option rate='" + v + "' is not a whole number of Hz");
        }
        if (hz < 2 || hz > 8192 || Long.bitCount(hz) != 1) {
            throw new RtboxException("rate", "RTC rate " + hz + " Hz is not allowed: use a power of two from 2 to 8192");
        }
        return hz;
    }

    @Override
    public void validate(RunParameters p) throws RtboxException {
        rate(p);
        if (p.cpus.length != 1) {
            throw new RtboxException("cpu", "the RTC probe reads one device from one thread: give one CPU, not "
                    + p.cpus.length);
        }
        ParameterChecks.common(p);
        ParameterChecks.noBreakNorSamples("rtc", p);
    }

    /** The device to open: the option, else the first of /dev/rtc, /dev/rtc0 that exists. */
    static String device(RunParameters p) throws RtboxException {
        String asked = p.option("device", null);
        if (asked != null) {
            if (!Files.exists(Path.of(asked))) {
                throw new RtboxException(asked, "RTC device " + asked + " does not exist");
            }
            return asked;
        }
        for (String d : DEFAULT_DEVICES) {
            if (Files.exists(Path.of(d))) {
                return d;
            }
        }
        throw new RtboxException("/dev/rtc", "no RTC device: neither /dev/rtc nor /dev/rtc0 exists. This machine has "
                + "no RTC driver bound (no rtc_cmos/MC146818, as in many VMs, or CONFIG_RTC_INTF_DEV is off); "
                + "use the timer or tsc probe here, or -o device=PATH for another RTC");
    }

    /** Turns an RTC_IRQP_SET refusal into what the user can do about it. */
    static RtboxException rateRefused(String device, long hz, OsException e) {
        if (e.errno() == Errno.EACCES) {
            String limit = readLimit("/sys/class/rtc/" + Path.of(device).getFileName() + "/max_user_freq");
            return new RtboxException("rate", "RTC rate " + hz + " Hz is over the user limit (max_user_freq "
                    + limit + "): run as root (CAP_SYS_RESOURCE) or raise /sys/class/rtc/rtc0/max_user_freq", e);
        }
        if (e.errno() == Errno.ENOTTY) {
            return new RtboxException(device, device + " is not an RTC: it refused RTC_IRQP_SET (ENOTTY)", e);
        }
        if (e.errno() == Errno.EINVAL) {
            return new RtboxException("rate", device + " refused RTC rate " + hz + " Hz (EINVAL): this RTC or its "
                    + "driver has no periodic interrupt at that rate", e);
        }
        return new RtboxException(device, e.getMessage(), e);
    }

    private static String readLimit(String path) {
        try (java.io.FileInputStream in = new java.io.FileInputStream(path)) {
            return new String(in.readAllBytes()).trim() + " Hz";
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    @Override
    public ProbeResult run(RunParameters p, RunContext context) throws RtboxException {
        validate(p);
        long hz = rate(p);
        String path = device(p);
        List<String> notes = new ArrayList<>();
        Reader reader = new Reader(p, hz, context);
        boolean locked = false;
        RtcDevice rtc;
        try {
            rtc = RtcDevice.open(path);
        } catch (OsException e) {
            throw new RtboxException(path, "cannot open " + path + ": " + e.getMessage()
                    + (e.errno() == Errno.EACCES ? " (needs read permission on the device)" : "")
                    + (e.errno() == Errno.EBUSY ? " (another process has the RTC open)" : ""), e);
        }
        try {
            try {
                rtc.setRate(hz);
            } catch (OsException e) {
                throw rateRefused(path, hz, e);
            }
            if (p.lockMemory) {
                MemoryLock.lockAll();
                locked = true;
                notes.add("memory locked with mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)");
            }
            reader.rtc = rtc;
            notes.add("wake-up path: " + rtc.readPath());
            reader.start();
            while (reader.isAlive()) {
                try {
                    reader.join(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    reader.stop = true;
                }
                if (context.stopRequested()) {
                    reader.stop = true;
                }
            }
            if (reader.failure != null) {
                throw reader.failure instanceof RtboxException r ? r
                        : new RtboxException(path, reader.failure.getMessage(), reader.failure);
            }
        } finally {
            // PIE off and close on every path; the kernel also disables PIE when the fd is released.
            try {
                rtc.close();
            } catch (OsException e) {
                notes.add("closing " + path + ": " + e.getMessage());
            }
            if (locked) {
                try {
                    MemoryLock.unlockAll();
                } catch (OsException e) {
                    notes.add(e.getMessage());
                }
            }
        }
        return reader.result(path, hz, notes);
    }

    /** The measuring thread: pinned, at the policy asked, reading the device. */
    static final class Reader extends Thread {
        private final RunParameters p;
        private final long hz;
        private final RunContext context;
        private final LatencyRecorder recorder;
        final long[] missed = new long[MISSED_BUCKETS + 1];
        volatile RtcDevice rtc;
        volatile boolean stop;
        volatile Exception failure;
        long startNanos;
        long endNanos;
        long reads;
        long missedTotal;
        int tid;
        String policy;
        int priority;
        boolean stopped;

        Reader(RunParameters p, long hz, RunContext context) {
            super("rtbox-rtc");
            setDaemon(true);
            this.p = p;
            this.hz = hz;
            this.context = context;
            this.recorder = new LatencyRecorder(0, p.histogramLimitUs, 0);
        }

        @Override
        public void run() {
            tid = Sched.gettid();
            try {
                Sched.setAffinity(0, p.cpus[0]);
                if (p.policy != SchedPolicy.OTHER || p.priority != 0) {
                    Sched.setScheduler(0, p.policy, p.priority);
                }
                rtc.periodicOn();
                long periodNs = 1_000_000_000L / hz;
                // Warm-up: the same loop, unrecorded past reset.
                long warmEnd = System.nanoTime() + p.warmupNs;
                long last = System.nanoTime();
                while (System.nanoTime() < warmEnd && !stop) {
                    rtc.readWord();
                    long now = rtc.wakeNanos();
                    recorder.record(now - last, now);
                    last = now;
                }
                long threshold = Math.max(20_000, Math.max(recorder.medianNs(), periodNs) * 2);
                rtc.readWord();
                startNanos = rtc.wakeNanos();
                recorder.reset(startNanos, threshold);
                last = startNanos;
                long loops = p.loops > 0 ? p.loops : Long.MAX_VALUE;
                long end = p.durationNs > 0 ? startNanos + p.durationNs
                        : p.loops > 0 ? Long.MAX_VALUE : startNanos + 5_000_000_000L;
                long n = 0;
                while (n < loops && !stop) {
                    long word = rtc.readWord();
                    long now = rtc.wakeNanos();
                    recorder.record(now - last, now);
                    last = now;
                    long lost = RtcDevice.interruptCount(word, RtcDevice.WORD_BYTES) - 1;
                    if (lost < 0) {
                        lost = 0;
                    }
                    missed[lost < MISSED_BUCKETS ? (int) lost : MISSED_BUCKETS]++;
                    missedTotal += lost;
                    n++;
                    if (now >= end) {
                        break;
                    }
                }
                stopped = stop;
                reads = n;
                endNanos = System.nanoTime();
                policy = Sched.getScheduler(0).lowerName();
                priority = Sched.getPriority(0);
            } catch (Exception e) {
                failure = e;
            }
        }

        ProbeResult result(String path, long hz, List<String> notes) {
            long periodNs = 1_000_000_000L / hz;
            ThreadResult t = new ThreadResult(0, p.cpus[0], tid, policy, priority, reads, missedTotal,
                    recorder.histogram(), recorder.corrected(), recorder.spikes(), recorder.spikesDropped(), recorder.lastNs());
            Map<String, Double> figures = new LinkedHashMap<>();
            figures.put("rate_hz", (double) hz);
            figures.put("period_us", periodNs / 1000.0);
            figures.put("reads", (double) reads);
            figures.put("missed_interrupts", (double) missedTotal);
            long withMissed = reads - missed[0];
            figures.put("reads_with_missed", (double) withMissed);
            for (int i = 0; i <= MISSED_BUCKETS; i++) {
                if (missed[i] > 0) {
                    figures.put(i < MISSED_BUCKETS ? "missed_hist_" + i : "missed_hist_" + MISSED_BUCKETS + "_or_more",
                            (double) missed[i]);
                }
            }
            notes.add("latency = inter-arrival time between reads of " + path + " (expected " + periodNs / 1000.0
                    + " us at " + hz + " Hz), by CLOCK_MONOTONIC; missed_hist_N counts reads that reported N "
                    + "interrupts missed (interrupt word count - 1)");
            notes.add(HRTIMER_NOTE);
            if (stopped) {
                notes.add("stopped early on request");
            }
            return new ProbeResult("rtc", p + " rate=" + hz + "Hz device=" + path, "CLOCK_MONOTONIC", startNanos,
                    endNanos - startNanos, !stopped, List.of(t), figures, notes);
        }
    }
}
