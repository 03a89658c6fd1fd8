package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

import rtbox.api.LiveThread;
import rtbox.report.Reports;

/**
 * The figures of a run while it lasts, read from the measuring threads' {@link LiveThread}s
 * by a thread of its own (the measuring threads only store their figures; they never wait
 * for it nor know it is there). On a terminal, cyclictest's way: a status line and one
 * {@code T:} line per thread (min, act, avg, max), redrawn in place every {@link
 * #TERMINAL_PERIOD_MS} ms from {@link #TERMINAL_AFTER_MS} ms on, and erased at the end for
 * the summary. Piped (a log, CI), one line on stderr every {@code pipedEveryMs}: a log gets
 * a heartbeat with the figures so far, not a line per sample nor escape codes.
 */
final class LiveDisplay {
    static final long TERMINAL_PERIOD_MS = 500;
    /** A run shorter than this shows no live lines: they would flash and vanish. */
    static final long TERMINAL_AFTER_MS = 2000;

    private final PrintWriter out;
    private final boolean terminal;
    private final long pipedEveryMs;
    private final String probe;
    private final int priority;
    private final long intervalUs;
    private final List<LiveThread> threads = new CopyOnWriteArrayList<>();
    private volatile double fraction;
    private volatile boolean done;
    private int drawn;
    private Thread thread;

    /**
     * @param out stdout on a terminal, stderr when piped
     * @param pipedEveryMs period of the piped line (0: none)
     */
    LiveDisplay(PrintWriter out, boolean terminal, long pipedEveryMs, String probe, int priority, long intervalUs) {
        this.out = out;
        this.terminal = terminal;
        this.pipedEveryMs = pipedEveryMs;
        this.probe = probe;
        this.priority = priority;
        this.intervalUs = intervalUs;
    }

    void add(LiveThread t) {
        threads.add(t);
    }

    void progress(double f) {
        fraction = f;
    }

    void start() {
        if (!terminal && pipedEveryMs <= 0) {
            return;
        }
        long startMs = System.currentTimeMillis();
        thread = new Thread(() -> {
            long period = terminal ? TERMINAL_PERIOD_MS : pipedEveryMs;
            long first = terminal ? TERMINAL_AFTER_MS : pipedEveryMs;
            long at = startMs + first;
            while (!done) {
                long wait = at - System.currentTimeMillis();
                if (wait > 0) {
                    try {
                        Thread.sleep(Math.min(wait, 100));
                    } catch (InterruptedException e) {
                        return;
                    }
                    continue;
                }
                synchronized (this) {
                    if (done) {
                        return;
                    }
                    long elapsed = System.currentTimeMillis() - startMs;
                    if (terminal) {
                        draw(elapsed);
                    } else {
                        out.println(line(elapsed));
                        out.flush();
                    }
                }
                at += period;
            }
        }, "rtbox-live");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the display and, on a terminal, erases what it drew (the summary follows). */
    void finish() {
        done = true;
        synchronized (this) {
            if (drawn > 0) {
                out.print("\033[J");
                out.flush();
                drawn = 0;
            }
        }
    }

    /** Draws the frame and puts the cursor back at its top, so the next frame overwrites it. */
    private void draw(long elapsedMs) {
        String frame = frame(elapsedMs);
        drawn = (int) frame.lines().count();
        out.print(frame);
        out.print("\033[" + drawn + "A");
        out.flush();
    }

    /** The terminal frame: a status line, then one T: line per thread, each line cleared to its end. */
    String frame(long elapsedMs) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "rtbox: %s %3d%% (%d s)", probe, Math.round(fraction * 100),
                elapsedMs / 1000)).append("\033[K\n");
        for (LiveThread t : threads) {
            b.append(tLine(t)).append("\033[K\n");
        }
        return b.toString();
    }

    /** The piped line: {@code rtbox: timer 40% (12 s): T:0 C:12000 Min 5 Act 7 Avg 6 Max 90 us; T:1 ...}. */
    String line(long elapsedMs) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "rtbox: %s %d%% (%d s):", probe,
                Math.round(fraction * 100), elapsedMs / 1000));
        String sep = " ";
        for (LiveThread t : threads) {
            long c = t.cycles();
            b.append(sep).append(String.format(Locale.ROOT, "T:%d C:%d Min %d Act %d Avg %d Max %d us", t.thread(), c,
                    us(t.minNs()), us(t.lastNs()), c == 0 ? 0 : us(t.sumNs() / c), us(t.maxNs())));
            sep = "; ";
        }
        return b.toString();
    }

    /** cyclictest's T: line from the live figures. */
    String tLine(LiveThread t) {
        long c = t.cycles();
        return Reports.tLine(t.thread(), t.tid(), priority, intervalUs, c, t.minNs(), t.lastNs(),
                c == 0 ? 0 : t.sumNs() / c, t.maxNs());
    }

    private static long us(long ns) {
        return Math.round(ns / 1000.0);
    }
}
