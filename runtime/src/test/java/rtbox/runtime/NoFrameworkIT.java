package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 / 16 point 7: help, version and plan check answer without starting the
 * framework (the launcher's rtbox.runtime.launch.NoFramework runs rtbox.cli's command line
 * on a plain class path), and say exactly what the framework would say: every line is run
 * both ways, the second with RTBOX_FRAMEWORK=always, and stdout, stderr and the exit code
 * compared. Not started means: no framework storage was made (data/framework), in a home
 * of its own for each command.
 */
class NoFrameworkIT {
    @TempDir
    Path dir;
    private int homes;

    /** What a command said, with its home folder written HOME, so that two homes' answers compare. */
    private record Answer(int exitCode, String stdout, String stderr, boolean frameworkStarted) {
        Answer(Rtbox.Result r, Path home) {
            this(r.exitCode(), r.stdout().replace(home.toString(), "HOME"), r.stderr().replace(home.toString(), "HOME"),
                    Files.exists(home.resolve("data/framework")));
        }

        void assertSame(Answer framework, String line) {
            assertEquals(framework.stdout(), stdout(), line + ": stdout");
            assertEquals(framework.stderr(), stderr(), line + ": stderr");
            assertEquals(framework.exitCode(), exitCode(), line + ": exit code");
        }
    }

    private Answer rtbox(boolean framework, Path deployed, String... args) throws Exception {
        Path home = dir.resolve("h" + homes++);
        try (Rtbox r = new Rtbox(home)) {
            if (deployed != null) {
                Files.createDirectories(home.resolve("deploy"));
                Files.copy(deployed, home.resolve("deploy").resolve(deployed.getFileName()));
            }
            if (framework) {
                r.env.put("RTBOX_FRAMEWORK", "always");
            }
            return new Answer(r.run(120, args), home);
        }
    }

    private Path plan(String name, String json) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, json);
        return f;
    }

    @Test
    void helpVersionAndPlanCheckSayWhatTheFrameworkSaysWithoutStartingIt() throws Exception {
        Path problems = plan("problems.json", "{\"rtbox_plan\": 1, \"name\": \"p\", \"probe\": \"timer\","
                + " \"duration\": \"1s\", \"parameters\": {\"interval_us\": 0}, \"thresholds\": {\"p99\": 5},"
                + " \"matrix\": {\"policy\": [\"fifo:80\", \"iso@120\"]}}");
        // Checked against what is installed: probes, workloads (with their configured defaults), the tuner.
        Path cells = plan("cells.json", "{\"rtbox_plan\": 1, \"name\": \"c\", \"probe\": \"nosuch\", \"duration\": \"1s\","
                + " \"cells\": [{}, {\"probe\": \"timer\", \"loads\": [\"nosuchload\"]},"
                + " {\"probe\": \"timer\", \"loads\": [\"pipe:mode=zzz\"]}, {\"probe\": \"timer\", \"loads\": [\"blockio:bs=3\"]},"
                + " {\"probe\": \"rtc\", \"parameters\": {\"cpus\": [0, 1]}}, {\"probe\": \"tsc\", \"policy\": \"iso@70\"}]}");
        List<String[]> lines = List.of(
                new String[] {"--help"}, new String[] {"-h"}, new String[] {"help"}, new String[] {},
                new String[] {"--version"}, new String[] {"-V"},
                new String[] {"help", "run"}, new String[] {"run", "--help"}, new String[] {"probes", "-h"},
                new String[] {"plan", "run", "-h"}, new String[] {"ctl", "list", "--help"}, new String[] {"job", "--help"},
                new String[] {"plan"}, new String[] {"plan", "check", "--help"}, new String[] {"plan", "check"},
                new String[] {"plan", "check", "../plans/quick.json"}, new String[] {"plan", "check", "../plans/seed-004.json"},
                new String[] {"plan", "check", problems.toString()}, new String[] {"plan", "check", cells.toString()},
                new String[] {"plan", "check", "plans/nosuch.json"});
        for (String[] args : lines) {
            String line = String.join(" ", args);
            Answer fast = rtbox(false, null, args);
            Answer framework = rtbox(true, null, args);
            assertTrue(framework.frameworkStarted(), line + ": RTBOX_FRAMEWORK=always did not start the framework");
            assertFalse(fast.frameworkStarted(), line + ": started the framework");
            fast.assertSame(framework, line);
        }
    }

    @Test
    void withABundleDroppedIntoDeployTheFrameworkAnswers() throws Exception {
        // A bundle beyond rtbox.jar's may add a command: only the framework knows.
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().putValue("Bundle-ManifestVersion", "2");
        mf.getMainAttributes().putValue("Bundle-SymbolicName", "rtbox.test.empty");
        Path bundle = dir.resolve("empty.jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(bundle), mf)) {
            j.flush();
        }
        Answer a = rtbox(false, bundle, "--help");
        assertEquals(0, a.exitCode(), a.stdout() + a.stderr());
        assertTrue(a.stdout().contains("Usage: rtbox"), a.stdout());
        assertTrue(a.frameworkStarted(), "a deployed bundle, yet no framework");
    }

    @Test
    void whatMeasuresOrReadsTheJournalStartsTheFramework() throws Exception {
        // -h is cyclictest's histogram for rtbox run, not help: the run needs the framework.
        Answer run = rtbox(false, null, "run", "timer", "-h", "400", "-l", "100", "-i", "1000");
        assertTrue(run.frameworkStarted(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("T: 0"), run.stdout());
        // A line that looks like help to the launcher script, but names a run: the command
        // line says so before printing anything, and the framework answers.
        Answer fast = rtbox(false, null, "results", "--", "--help");
        Answer framework = rtbox(true, null, "results", "--", "--help");
        assertTrue(fast.frameworkStarted(), fast.stdout() + fast.stderr());
        fast.assertSame(framework, "results -- --help");
    }
}
