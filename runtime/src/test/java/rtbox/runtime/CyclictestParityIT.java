package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * rtbox run and cyclictest (Debian's rt-tests, which .ci/run installs) with the same option
 * lines, the common ones of OSADL's and rteval's scripts and of board bring-up plot recipes:
 * the whole stdout has the same structure line by line (numbers masked: every histogram
 * bucket, the same column separators, the overflow lines, nothing more with -q), and the
 * JSON the same keys, so scripts that read cyclictest read rtbox. Figures differ, of course:
 * the two run one after the other.
 */
class CyclictestParityIT {
    @TempDir
    Path home;

    private static List<String> run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), cmd + " did not end");
        assertEquals(0, p.exitValue(), cmd + ": " + out + new String(p.getErrorStream().readAllBytes()));
        return out.lines().toList();
    }

    /** cyclictest -v's sample line: thread, cycle, latency in us, "%8d:%8lu:%8ld". */
    private static final String SAMPLE = " {0,7}\\d+: {0,7}\\d+: {0,7}\\d+";

    /**
     * A line's structure: numbers masked, separators kept (a histogram row is "N N\tN": the
     * tab is what cyclictest puts between thread columns). Padding before a number is masked
     * with it in T: lines (a thread without cycles prints Min:1000000, no room for a space); a
     * thread's overflow cycle list is masked whole (its length is the run's).
     */
    static String mask(String line) {
        if (line.matches(SAMPLE)) {
            return "sample";
        }
        if (line.startsWith("T:")) {
            return line.replaceAll("\\s*\\d+", " N").replaceAll(" +", " ");
        }
        if (line.matches("# Thread \\d+:.*")) {
            return "# Thread N: cycles";
        }
        return line.replaceAll("\\d+", "N").replaceAll(" +", " ");
    }

    /**
     * The whole stdout's structure, line by line: each line masked, a run of -v samples as one
     * line (cyclictest may leave a thread's last few unprinted, see below; its threads' samples
     * come in batches, rtbox's interleaved). Left out: only what rtbox's kernel trace adds to a
     * -b break (# Break culprits, # Break trace and its indented lines), which cyclictest has not.
     */
    static List<String> structure(List<String> lines) {
        List<String> s = new ArrayList<>();
        for (String l : lines) {
            if (l.startsWith("# Break culprits: ") || l.startsWith("# Break trace ") || l.startsWith("#   ")) {
                continue;
            }
            String m = mask(l);
            if (!(m.equals("sample") && !s.isEmpty() && s.get(s.size() - 1).equals("sample"))) {
                s.add(m);
            }
        }
        return s;
    }

    /** Debian's cyclictest: without it skipped on a developer's machine, failed in CI (.ci/run installs rt-tests). */
    private static void needCyclictest() {
        if (!Files.isExecutable(Path.of("/usr/bin/cyclictest"))) {
            Assumptions.assumeTrue(System.getenv("CI") != null, "no /usr/bin/cyclictest here (apt-get install rt-tests): "
                    + "skipped");
            throw new AssertionError("CI must install rt-tests (.ci/run does): /usr/bin/cyclictest is missing");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-l2000 -m -Sp99 -i200 -h400 -q",
        "-l2000 -m -Sp99 -i200 -h12 -q",
        "-l1000 -m -Sp99 -i1000 -q",
        "-l500 -m -p95 -i1000 -t -a -q",
        "-v -l200 -m -Sp99 -i1000 -q",
        "-l2000 -m -Sp99 -i1000 -b 1 -q",
    })
    void sameLinesAsCyclictest(String options) throws Exception {
        needCyclictest();
        List<String> args = List.of(options.trim().split("\\s+"));
        List<String> ct = new ArrayList<>(List.of("/usr/bin/cyclictest"));
        ct.addAll(args);
        List<String> rt;
        String rtErr;
        try (Rtbox rtbox = new Rtbox(home)) {
            List<String> a = new ArrayList<>(List.of("run", "timer"));
            a.addAll(args);
            Rtbox.Result r = rtbox.run(120, a.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            rt = List.copyOf(rtbox.out); // every line as printed (stdout() as a string loses a last empty one)
            rtErr = r.stderr();
        }
        List<String> c = run(ct);
        // The whole stdout, line by line: a script that reads cyclictest's reads rtbox's.
        assertEquals(structure(c), structure(rt), "cyclictest:\n" + String.join("\n", c) + "\nrtbox:\n"
                + String.join("\n", rt));
        if (args.contains("-q")) {
            // rtbox's verdict (no thresholds: MEASURED) is its own: on stderr, never among the lines scripts read.
            assertTrue(rtErr.lines().anyMatch(l -> l.startsWith("MEASURED: ")), rtErr);
        }
        if (args.contains("-h12")) {
            // -h12 at -i200: wake-ups later than 12 us overflow, in both. Each thread's line lists the cycle
            // numbers of its first overflows (as many as there are buckets) and counts the rest as others.
            String[] counts = rt.stream().filter(l -> l.startsWith("# Histogram Overflows:")).findFirst()
                    .orElseThrow().substring("# Histogram Overflows:".length()).trim().split(" ");
            for (int t = 0; t < counts.length; t++) {
                String prefix = "# Thread " + t + ":";
                String line = rt.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
                String[] parts = line.substring(prefix.length()).split("#");
                long listed = parts[0].isBlank() ? 0 : parts[0].trim().split(" ").length;
                long others = parts.length > 1 ? Long.parseLong(parts[1].trim().split(" ")[0]) : 0;
                assertEquals(Long.parseLong(counts[t]), listed + others, line);
                assertTrue(listed <= 12, line);
            }
        }
        if (args.contains("-v")) {
            // Samples numbered from 0 per thread as cyclictest numbers them. rtbox prints every one its T: line
            // counts; cyclictest may leave the last few of a thread unprinted (it stops all threads when the first
            // is done, and prints only what its main loop drained), so of it only: no sample it did not count.
            assertEquals(samplesByTLines(rt), samples(rt), String.join("\n", rt));
            assertTrue(!samples(c).isEmpty() && samplesByTLines(c).containsAll(samples(c)), String.join("\n", c));
            assertTrue(samples(c).contains("0:0") && samples(rt).contains("0:0"), "numbered from 0");
        }
        if (args.contains("-b")) {
            // -b 1: both stop at their first wake-up (every one is later than 1 us), and name the thread.
            for (List<String> out : List.of(c, rt)) {
                List<String> tids = out.stream().filter(l -> l.startsWith("T:"))
                        .map(l -> l.replaceAll("T: *\\d+ \\( *(\\d+)\\).*", "$1")).toList();
                String brk = out.stream().filter(l -> l.startsWith("# Break thread: ")).findFirst().orElseThrow()
                        .substring("# Break thread: ".length());
                assertTrue(tids.contains(brk), "the break thread " + brk + " is one of " + tids + ": " + out);
            }
            long rtCycles = rt.stream().filter(l -> l.startsWith("T:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll(".*C: *(\\d+).*", "$1"))).sum();
            assertTrue(rtCycles < 2000 * 2, "rtbox stopped early, not after its -l2000: " + rt);
            assertTrue(rtErr.contains("(-b)"), "the verdict says why it stopped: " + rtErr);
        }
    }

    /** The (thread, cycle) pairs that the T: lines' cycle counts call for. */
    private static TreeSet<String> samplesByTLines(List<String> lines) {
        TreeSet<String> s = new TreeSet<>();
        for (String l : lines) {
            if (l.startsWith("T:")) {
                int thread = Integer.parseInt(l.replaceAll("T: *(\\d+) .*", "$1"));
                long cycles = Long.parseLong(l.replaceAll(".*C: *(\\d+).*", "$1"));
                for (long k = 0; k < cycles; k++) {
                    s.add(thread + ":" + k);
                }
            }
        }
        return s;
    }

    /** The (thread, cycle) of every -v sample line. */
    private static TreeSet<String> samples(List<String> lines) {
        TreeSet<String> s = new TreeSet<>();
        for (String l : lines) {
            if (l.matches(SAMPLE)) {
                String[] f = l.trim().split(": *");
                s.add(f[0] + ":" + f[1]);
            }
        }
        return s;
    }

    @Test
    void sameJsonKeysAsCyclictest() throws Exception {
        needCyclictest();
        Path ctJson = home.resolve("ct.json"), rtJson = home.resolve("rt.json");
        run(List.of("/usr/bin/cyclictest", "-m", "-p95", "-i1000", "-D2", "-t", "-a", "-h", "1000", "-q",
                "--json=" + ctJson));
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(120, "run", "timer", "-m", "-p95", "-i1000", "-D2", "-t", "-a", "-h", "1000",
                    "-q", "--json", rtJson.toString());
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        }
        JsonObject c = JsonParser.parseString(Files.readString(ctJson)).getAsJsonObject();
        JsonObject r = JsonParser.parseString(Files.readString(rtJson)).getAsJsonObject();
        TreeSet<String> rtKeys = new TreeSet<>(r.keySet());
        rtKeys.remove("rtbox"); // rtbox's own figures, under their own key
        assertEquals(new TreeSet<>(c.keySet()), rtKeys);
        assertEquals(new TreeSet<>(c.getAsJsonObject("sysinfo").keySet()),
                new TreeSet<>(r.getAsJsonObject("sysinfo").keySet()));
        assertEquals(c.getAsJsonObject("sysinfo").get("machine"), r.getAsJsonObject("sysinfo").get("machine"));
        assertEquals(c.getAsJsonObject("thread").keySet(), r.getAsJsonObject("thread").keySet());
        assertEquals(new TreeSet<>(c.getAsJsonObject("thread").getAsJsonObject("0").keySet()),
                new TreeSet<>(r.getAsJsonObject("thread").getAsJsonObject("0").keySet()));
        assertEquals(c.get("num_threads"), r.get("num_threads"));
    }

    @Test
    void optionsRtboxDoesNotDoAreRefusedSayingWhy() throws Exception {
        String[][] refused = {{"-N"}, {"-d", "100"}, {"-s"}, {"--spike=100"}, {"--priospread"}};
        for (String[] o : refused) {
            try (Rtbox rtbox = new Rtbox(home)) {
                List<String> a = new ArrayList<>(List.of("run", "timer", "-D", "1"));
                Collections.addAll(a, o);
                Rtbox.Result r = rtbox.run(120, a.toArray(String[]::new));
                assertEquals(2, r.exitCode(), String.join(" ", o) + ": " + r.stderr());
                assertTrue(r.stderr().contains("is not supported") && !r.stderr().contains("Unknown option"),
                        String.join(" ", o) + ": " + r.stderr());
            }
        }
    }
}
