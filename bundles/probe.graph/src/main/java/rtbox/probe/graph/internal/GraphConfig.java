package rtbox.probe.graph.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.core.toolkit.Parameters;

/**
 * The graph's own options, read once and checked with errors that name the option.
 * The period is the run's interval ({@code -i}, {@code interval_us}: every probe's word for
 * how often it wakes), or {@code frames} at {@code rate} as JACK users say it (64 frames at
 * 48000 Hz: 1333 us), or the RTC's rate with {@code clock=rtc}.
 */
record GraphConfig(long periodNs, int clients, double loadPct, long workNsPerClient, boolean processes, boolean rtc,
        String rtcDevice, int rtcHz, long stallNs, long stallEvery) {
    static final List<String> OPTIONS = List.of("clients", "load", "work", "ends", "frames", "rate", "clock", "rtc_hz",
            "device", "stall", "stall_every");
    static final int DEFAULT_CLIENTS = 14;
    static final int MAX_CLIENTS = 128;
    static final double MAX_LOAD = 95;
    static final long MIN_PERIOD_NS = 100_000, MAX_PERIOD_NS = 1_000_000_000;
    static final String[] RTC_DEVICES = {"/dev/rtc", "/dev/rtc0"};

    static GraphConfig parse(RunParameters p) throws RtboxException {
        Parameters o = new Parameters("graph", null, p.options).only(p.options, OPTIONS);
        int clients = (int) o.integer("clients", DEFAULT_CLIENTS, 1, MAX_CLIENTS);
        String loadText = o.string("load", null);
        long work = o.nanos("work", -1, "us");
        if (loadText != null && work >= 0) {
            throw new RtboxException("work", "graph: give either load (DSP load in % of the period) or work (time per "
                    + "client), not both");
        }
        double load = 50;
        if (loadText != null) {
            try {
                load = Double.parseDouble(loadText.replace("%", "").trim());
            } catch (NumberFormatException e) {
                throw new RtboxException("load", "graph: load '" + loadText + "' is not a number (DSP load in % of the "
                        + "period, e.g. 50)");
            }
            if (!(load >= 0 && load <= MAX_LOAD)) {
                throw new RtboxException("load", "graph: load " + loadText + " % is out of range: use 0 to " + (int) MAX_LOAD
                        + " (a graph that needs the whole period has no time left to wake up in)");
            }
        }
        boolean processes = o.choice("ends", "threads", "threads", "processes").equals("processes");
        boolean rtc = o.choice("clock", "timer", "timer", "rtc").equals("rtc");
        long frames = o.integer("frames", 0, 1, 1 << 20);
        long rate = o.integer("rate", 0, 1000, 1_000_000);
        if ((frames > 0) != (rate > 0)) {
            throw new RtboxException(frames > 0 ? "rate" : "frames", "graph: frames and rate go together (64 frames at "
                    + "48000 Hz is a period of 1333 us)");
        }
        int rtcHz = (int) o.integer("rtc_hz", 1024, 2, 8192);
        if (Integer.bitCount(rtcHz) != 1) {
            throw new RtboxException("rtc_hz", "graph: rtc_hz " + rtcHz + " is not a power of two (the RTC's periodic "
                    + "rates are 2 to 8192 Hz in powers of two; 1024 or 2048 as in seed 004)");
        }
        long periodNs = rtc ? 1_000_000_000L / rtcHz : frames > 0 ? frames * 1_000_000_000L / rate : p.intervalUs * 1000;
        if (periodNs < MIN_PERIOD_NS || periodNs > MAX_PERIOD_NS) {
            throw new RtboxException(frames > 0 ? "frames" : "interval", String.format(Locale.ROOT,
                    "graph: a period of %.1f us is out of range: use %d us to %d s", periodNs / 1000.0,
                    MIN_PERIOD_NS / 1000, MAX_PERIOD_NS / 1_000_000_000));
        }
        if (work >= 0 && work * clients >= periodNs) {
            throw new RtboxException("work", "graph: " + clients + " clients x " + work / 1000 + " us of work is "
                    + "over the period of " + periodNs / 1000 + " us");
        }
        String device = rtc ? rtcDevice(o.string("device", null)) : null;
        long stall = o.nanos("stall", 0, "us");
        long stallEvery = o.integer("stall_every", 100, 2, Long.MAX_VALUE);
        return new GraphConfig(periodNs, clients, work >= 0 ? -1 : load, work, processes, rtc, device, rtcHz, stall,
                stallEvery);
    }

    /** The RTC device to open, or the error that says there is none. */
    private static String rtcDevice(String given) throws RtboxException {
        if (given != null) {
            if (!Files.exists(Path.of(given))) {
                throw new RtboxException("device", "graph: RTC device " + given + " does not exist");
            }
            return given;
        }
        for (String d : RTC_DEVICES) {
            if (Files.exists(Path.of(d))) {
                return d;
            }
        }
        throw new RtboxException("/dev/rtc", "graph: clock=rtc needs an RTC, and neither /dev/rtc nor /dev/rtc0 "
                + "exists on this machine: use clock=timer (the default: an absolute CLOCK_MONOTONIC timer)");
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "period=%.1fus clients=%d %s ends=%s clock=%s%s", periodNs / 1000.0, clients,
                loadPct >= 0 ? "load=" + loadPct + "%" : "work=" + workNsPerClient / 1000.0 + "us",
                processes ? "processes" : "threads", rtc ? "rtc@" + rtcHz + "Hz" : "timer",
                stallNs > 0 ? " stall=" + stallNs / 1000 + "us every " + stallEvery + " cycles" : "");
    }
}
