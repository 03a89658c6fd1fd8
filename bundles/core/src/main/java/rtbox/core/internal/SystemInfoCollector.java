package rtbox.core.internal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import rtbox.api.SchedPolicy;
import rtbox.api.result.SystemInfo;
import rtbox.os.MonotonicClock;
import rtbox.os.OsException;
import rtbox.os.Sched;
import rtbox.os.Tsc;

/**
 * What an RT engineer needs to know about the machine to read a result: kernel and
 * preemption model, clock source, RT throttling, timer slack, CPU, JVM and flags.
 * Reads /proc and /sys only; a value the machine does not offer is "unknown".
 */
final class SystemInfoCollector {
    private SystemInfoCollector() {
    }

    /** The machine as uname -m (and cyclictest) say it: x86_64, i686, aarch64; not Java's amd64. */
    static String machine() {
        String arch = read("/proc/sys/kernel/arch");
        return "unknown".equals(arch) ? unameMachine(System.getProperty("os.arch")) : arch;
    }

    static String unameMachine(String javaArch) {
        switch (javaArch) {
            case "amd64": return "x86_64";
            case "x86": case "i386": return "i686";
            case "arm": return "armv7l";
            default: return javaArch;
        }
    }

    static SystemInfo collect() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("rtbox_version", rtbox.core.Build.version());
        v.put("rtbox_commit", rtbox.core.Build.commit());
        v.put("sysname", System.getProperty("os.name"));
        v.put("nodename", read("/proc/sys/kernel/hostname"));
        v.put("release", read("/proc/sys/kernel/osrelease"));
        v.put("version", read("/proc/sys/kernel/version"));
        v.put("machine", machine());
        v.put("preemption", rtbox.os.Preemption.model());
        v.put("realtime", rtbox.os.Preemption.RT.equals(v.get("preemption")) ? "1" : "0");
        // the rtbox image's SYSLINUX entry this kernel was started from (stock, rt): "" elsewhere
        v.put("boot_entry", rtbox.os.BootPartition.booted());
        // the rtbox image's build (image/build.sh's manifest), what the control room's regression
        // page selects runs by as "firmware image": "" off the image
        v.put("image", image(Path.of("/etc/rtbox/image-manifest")));
        v.put("clocksource", read("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
        try {
            v.put("clock_resolution_ns", Long.toString(MonotonicClock.resolutionNanos()));
        } catch (OsException e) {
            v.put("clock_resolution_ns", "unknown");
        }
        v.put("sched_rt_runtime_us", read("/proc/sys/kernel/sched_rt_runtime_us"));
        v.put("sched_rt_period_us", read("/proc/sys/kernel/sched_rt_period_us"));
        v.put("rt_throttling", rtThrottling(v.get("sched_rt_runtime_us"), v.get("sched_rt_period_us")));
        boolean isoFiles = Files.exists(Path.of("/proc/sys/kernel/iso_cpu"));
        v.put("sched_iso", Sched.accepts(SchedPolicy.ISO) ? "yes (iso_cpu " + read("/proc/sys/kernel/iso_cpu") + ")"
                : isoFiles ? "iso_cpu present but policy 4 refused" : "no");
        try {
            v.put("timer_slack_ns_default", Long.toString(Sched.getTimerSlackNanos()));
        } catch (OsException e) {
            v.put("timer_slack_ns_default", "unknown");
        }
        v.put("timer_slack_ns_probe", "1");
        v.put("cpu_model", cpuInfo("model name"));
        String tscFlags = Tsc.cpuFlags();
        v.put("tsc_flags", tscFlags);
        v.put("tsc_invariant", Tsc.invariant(tscFlags) ? "yes (constant_tsc nonstop_tsc)"
                : "no: " + Tsc.invarianceWarning(tscFlags));
        try (Tsc tsc = Tsc.open()) {
            v.put("tsc_clock", tsc.clock() + (tsc.isTsc() ? "" : ": " + tsc.fallbackReason()));
            v.put("tsc_hz", tsc.isTsc() ? String.format(java.util.Locale.ROOT, "%.0f", tsc.hz()) : "n/a");
            v.put("tsc_calibration", tsc.isTsc() ? String.format(java.util.Locale.ROOT,
                    "against CLOCK_MONOTONIC, 5 x 40 ms, spread %.1e", tsc.calibrationSpread()) : "n/a");
            v.put("tsc_read_path", tsc.callPath());
        }
        v.put("cpus_online", read("/sys/devices/system/cpu/online"));
        v.put("cpu_dma_latency", "not set by rtbox");
        v.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        v.put("jvm_flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        v.put("jvm_safepoint_log", SafepointLog.configured() == null ? "none" : SafepointLog.configured().toString());
        return new SystemInfo(v);
    }

    static String rtThrottling(String runtime, String period) {
        if ("-1".equals(runtime)) {
            return "off (sched_rt_runtime_us = -1)";
        }
        if (runtime.matches("\\d+") && period.matches("\\d+")) {
            long r = Long.parseLong(runtime), p = Long.parseLong(period);
            return "on: RT tasks get " + r + " of every " + p + " us; a CPU-bound RT task is stopped for "
                    + (p - r) / 1000 + " ms every " + p / 1000 + " ms";
        }
        return "unknown";
    }

    private static String cpuInfo(String key) {
        try {
            for (String line : rtbox.os.Procfs.lines("/proc/cpuinfo")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                    return line.substring(colon + 1).trim();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }

    /** "BUILD (git REV)" from the image's manifest (RTBOX_IMAGE_BUILD, RTBOX_IMAGE_GIT); "" without one. */
    static String image(Path manifest) {
        String build = "", git = "";
        try {
            for (String l : java.nio.file.Files.readAllLines(manifest)) {
                if (l.startsWith("RTBOX_IMAGE_BUILD=")) {
                    build = l.substring(l.indexOf('=') + 1).strip();
                } else if (l.startsWith("RTBOX_IMAGE_GIT=")) {
                    git = l.substring(l.indexOf('=') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        return build.isEmpty() ? "" : build + (git.isEmpty() ? "" : " (git " + git + ")");
    }

    static String read(String path) {
        try {
            return rtbox.os.Procfs.read(path);
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
