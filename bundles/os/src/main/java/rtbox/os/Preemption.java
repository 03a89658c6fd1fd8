package rtbox.os;

import java.io.IOException;

/**
 * The kernel's preemption model, as an RT engineer names it: {@code PREEMPT_RT} (a real-time
 * kernel: /sys/kernel/realtime is 1, or uname -v says PREEMPT_RT), {@code PREEMPT_DYNAMIC
 * (full)} with the mode the kernel runs in now (debugfs' sched/preempt, e.g. the stock kernel
 * booted with preempt=full), {@code PREEMPT}, or none/voluntary. PREEMPT_RT is looked at
 * first: a real-time kernel is named as such whatever else its version string says.
 *
 * @since 1.11
 */
public final class Preemption {
    public static final String RT = "PREEMPT_RT";

    private Preemption() {
    }

    /** This machine's model, read from /sys and /proc; "unknown" when they say nothing. */
    public static String model() {
        return model(read("/proc/sys/kernel/version"), read("/sys/kernel/realtime"),
                read("/sys/kernel/debug/sched/preempt"), read("/proc/cmdline"));
    }

    /** Whether this machine runs a PREEMPT_RT kernel. */
    public static boolean realtime() {
        return RT.equals(model());
    }

    /**
     * The model from what the kernel says: {@code version} (uname -v), {@code realtime}
     * (/sys/kernel/realtime: "1" on PREEMPT_RT) and {@code dynamic} (debugfs' sched/preempt,
     * "none voluntary (full)") and {@code cmdline} (/proc/cmdline, whose {@code preempt=} sets the
     * dynamic mode at boot: the mode where debugfs is not mounted, as on the rtbox image); each null
     * when it cannot be read.
     */
    public static String model(String version, String realtime, String dynamic, String cmdline) {
        if ("1".equals(realtime == null ? null : realtime.trim())
                || version != null && version.contains("PREEMPT_RT")) {
            return RT;
        }
        if (dynamic != null) {
            int open = dynamic.indexOf('('), close = dynamic.indexOf(')');
            if (open >= 0 && close > open) {
                return "PREEMPT_DYNAMIC (" + dynamic.substring(open + 1, close) + ")";
            }
        }
        if (version == null) {
            return "unknown";
        }
        if (version.contains("PREEMPT_DYNAMIC")) {
            String boot = cmdline == null ? null : java.util.Arrays.stream(cmdline.trim().split("\\s+"))
                    .filter(a -> a.matches("preempt=(none|voluntary|full)")).reduce((a, b) -> b).orElse(null);
            return boot != null ? "PREEMPT_DYNAMIC (" + boot.substring("preempt=".length()) + ", set by " + boot + ")"
                    : "PREEMPT_DYNAMIC (mode unknown: debugfs not mounted)";
        }
        if (version.contains("PREEMPT")) {
            return "PREEMPT";
        }
        return "none or voluntary (no PREEMPT in the version string)";
    }

    private static String read(String path) {
        try {
            return Procfs.read(path);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
