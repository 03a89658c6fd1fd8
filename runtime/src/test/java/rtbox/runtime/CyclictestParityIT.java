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
 * lines, the common ones of OSADL's and rteval's scripts: the outputs have the same
 * structure (the same kinds of lines, the same JSON keys), so scripts that read cyclictest
 * read rtbox. Figures differ, of course: the two run one after the other.
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

    /** A line's kind: "T:" lines and "# Name:" lines by their keys, histogram rows as one kind. */
    private static String kind(String line) {
        if (line.startsWith("T:")) {
            return line.replaceAll("\\d+", "N").replaceAll("\\s+", " ");
        }
        if (line.matches("\\d{6}(\\s+\\d+)+")) {
            return "histogram row";
        }
        if (line.startsWith("#")) {
            return line.replaceAll("[\\d]+", "N").replaceAll("\\s+", " ");
        }
        return "other: " + line;
    }

    private static TreeSet<String> kinds(List<String> lines) {
        TreeSet<String> k = new TreeSet<>();
        for (String l : lines) {
            // cyclictest's overflow cycle list has no counterpart in rtbox's result (it has no per-sample list).
            if (!l.startsWith("# Histogram Overflow at cycle number") && !l.startsWith("# Thread ") && !l.isEmpty()) {
                k.add(kind(l));
            }
        }
        return k;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-l2000 -m -Sp99 -i200 -h400 -q",
        "-l1000 -m -Sp99 -i1000 -q",
        "-l500 -m -p95 -i1000 -t -a -q",
    })
    void sameLinesAsCyclictest(String options) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/cyclictest")), "cyclictest (rt-tests) missing: "
                + ".ci/run installs it");
        List<String> args = List.of(options.trim().split("\\s+"));
        List<String> ct = new ArrayList<>(List.of("/usr/bin/cyclictest"));
        ct.addAll(args);
        List<String> rt;
        try (Rtbox rtbox = new Rtbox(home)) {
            List<String> a = new ArrayList<>(List.of("run", "timer"));
            a.addAll(args);
            Rtbox.Result r = rtbox.run(120, a.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            rt = r.stdout().lines().toList();
        }
        List<String> c = run(ct);
        TreeSet<String> rtKinds = kinds(rt);
        // rtbox's one addition: its verdict as the last line (no thresholds: MEASURED).
        assertTrue(rt.get(rt.size() - 1).startsWith("MEASURED: "), rt.toString());
        rtKinds.remove(kind(rt.get(rt.size() - 1)));
        assertEquals(kinds(c), rtKinds, "cyclictest:\n" + String.join("\n", c) + "\nrtbox:\n" + String.join("\n", rt));
        assertEquals(c.stream().filter(l -> l.startsWith("T:")).count(), rt.stream().filter(l -> l.startsWith("T:"))
                .count(), "one T: line per thread");
    }

    @Test
    void sameJsonKeysAsCyclictest() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/cyclictest")), "cyclictest (rt-tests) missing");
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
        String[][] refused = {{"-N"}, {"-b", "100"}, {"--breaktrace=100"}, {"-d", "100"}, {"-v"}, {"-s"},
            {"--spike=100"}, {"--priospread"}};
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
