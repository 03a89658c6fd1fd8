package rtbox.cli.internal;

import java.io.PrintWriter;

import rtbox.api.result.RunReport;
import rtbox.report.Reports;

/**
 * What {@code rtbox run} prints on stdout, line for line where cyclictest (rt-tests 2.x) prints
 * the same thing, since scripts read it: a plot recipe takes every line not starting with
 * {@code #} as a histogram row. So -v's header lines come before the samples as cyclictest's
 * do, -h prints cyclictest's whole histogram, and with -q nothing goes to stdout that cyclictest
 * would not print there: the verdict goes to stderr. CyclictestParityIT compares the lines
 * with Debian's cyclictest.
 */
final class CyclictestStdout {
    private CyclictestStdout() {
    }

    /** cyclictest -v's first lines, before it touches /dev/cpu_dma_latency. */
    static void verboseHeader(PrintWriter out) {
        out.println("Max CPUs = " + possibleCpus());
        out.println("Online CPUs = " + rtbox.os.Sched.configuredCpus());
    }

    /** cyclictest -v's line per thread as it starts, after the /dev/cpu_dma_latency line. */
    static void threadIntervals(PrintWriter out, int threads, long intervalUs) {
        for (int i = 0; i < threads; i++) {
            out.println("Thread " + i + " Interval: " + intervalUs);
        }
    }

    /** Everything after the measurement: the histogram (-h), the T: lines, -b's lines, the verdict. */
    static void end(PrintWriter out, PrintWriter err, RunReport r, boolean quiet, boolean histogram) {
        if (histogram) {
            out.print(Reports.histogramFile(r));
        }
        String verdict = r.verdict().outcome() + ": " + r.verdict().reason();
        if (quiet) {
            // cyclictest -q: the T: lines (none with -h), -b's lines; the verdict is rtbox's own, so stderr.
            if (!histogram) {
                Reports.summary(r).lines().filter(l -> l.startsWith("T:")).forEach(out::println);
            }
            out.print(Reports.breakLines(r));
            out.flush();
            err.println(verdict);
        } else {
            out.print(Reports.summary(r));
            out.print(LoadFigures.format(r.workloads(), r.events()));
        }
    }

    /** get_nprocs_conf's answer: the CPUs the kernel could bring online. */
    private static int possibleCpus() {
        try {
            int max = 0;
            String list = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/devices/system/cpu/possible"));
            for (int c : rtbox.os.Sched.parseCpuList(list)) {
                max = Math.max(max, c + 1);
            }
            return max;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return rtbox.os.Sched.configuredCpus();
        }
    }
}
