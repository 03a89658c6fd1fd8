package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INCONCLUSIVE exits 3 from every command that gives a verdict (issue 14): {@code run},
 * {@code plan run} and {@code job} whose measuring JVM is made to pause by a forced GC
 * (jcmd GC.run) with a JVM stall budget of 1 us, {@code results} of that plan, {@code ctl
 * run} and {@code ctl plan} whose run the control room stops (with a latency threshold
 * set), and {@code ctl results} of that plan. A command killed by SIGTERM exits 143, as
 * the JVM does; its cut-short result is in the journal. The mapping itself is unit-tested (Verdict.Outcome);
 * this checks that each command really uses it.
 */
class InconclusiveExitIT extends MqttFixture {
    private static final String LENIENT = "\"thresholds\":{\"max_us\":1000000}";
    /** A latency limit no spike reaches, and a JVM stall budget any full GC exceeds. */
    private static final String STALL = "\"thresholds\":{\"max_us\":1000000,\"jvm_stall_us\":1}";

    @TempDir
    Path work;

    private Path plan(String name, String duration, String thresholds) throws Exception {
        Path f = work.resolve(name + ".json");
        Files.writeString(f, "{\"rtbox_plan\":1,\"name\":\"" + name + "\",\"probe\":\"timer\",\"duration\":\""
                + duration + "\",\"warmup\":\"200ms\"," + thresholds + ",\"cells\":[{\"name\":\"only\"}]}");
        return f;
    }


    /** Names of a process's threads (/proc/PID/task/TID/comm). */
    private static java.util.List<String> threads(long pid) throws java.io.IOException {
        java.util.List<String> names = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    names.add(Files.readString(t.resolve("comm")).trim());
                } catch (java.io.IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return names;
    }

    /**
     * Once {@code pid} measures (its JVM-pause monitor, rtbox-hiccup, runs), and past the
     * warm-up, forces a full GC in it: a JVM pause inside the measurement.
     */
    private static void pauseWhenMeasuring(long pid) throws Exception {
        Await.until(120_000, () -> "process " + pid + " never started measuring",
                () -> threads(pid).contains("rtbox-hiccup"));
        // Fixed on purpose: 2 s into the run, past its 1 s warm-up; a measuring appliance says nothing on the way.
        Thread.sleep(2000);
        Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true).start();
        assertTrue(jcmd.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, jcmd.exitValue(), new String(jcmd.getInputStream().readAllBytes()));
    }

    @Test
    void runPlanRunAndResultsExit3WhenTheJvmStallsOverItsBudget() throws Exception {
        try (Rtbox run = new Rtbox(home)) {
            run.start("run", "timer", "-D", "8s", "-i", "1000", "--max-latency", "1000000", "--jvm-stall-budget", "1");
            pauseWhenMeasuring(run.pid());
            Rtbox.Result r = run.awaitExit(120);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("INCONCLUSIVE"), r.stdout());
        }
        Path p = plan("paused", "8s", STALL);
        try (Rtbox planRun = new Rtbox(home)) {
            planRun.start("plan", "run", p.toString());
            pauseWhenMeasuring(planRun.pid());
            Rtbox.Result r = planRun.awaitExit(120);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
        }
        try (Rtbox results = new Rtbox(home)) {
            Rtbox.Result r = results.run(60, "results", "last");
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("INCONCLUSIVE"), r.stdout());
        }
    }

    private Rtbox ctl(String verb, String... args) throws Exception {
        Rtbox c = new Rtbox(Files.createTempDirectory(work, "ctl"));
        c.start(ctlCommand(verb, args));
        return c;
    }

    /** Runs already stopped: their statuses are still among the messages received. */
    private final java.util.Set<String> stopped = new java.util.HashSet<>();

    /** Waits until a1's status says it runs a new run, then sends it {@code stop} as a control room would. */
    private void stopWhenRunning() throws Exception {
        ControlRoom.Received busy = control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().has("run") && !m.json().get("run").isJsonNull()
                && !stopped.contains(m.json().get("run").getAsString()), 60_000);
        assertNotNull(busy, "a1 never said it runs");
        stopped.add(busy.json().get("run").getAsString());
        Thread.sleep(2000); // fixed: stopped 2 s into the run, past its warm-up, as a person would (a time, not a state)
        String id = control.command(MqttIT.A, "stop", "");
        ControlRoom.Received reply = control.reply(MqttIT.A, id, 15_000);
        assertNotNull(reply, "no reply to stop");
        assertEquals(200, reply.json().get("code").getAsInt(), reply.payload());
    }

    @Test
    void ctlRunCtlPlanAndCtlResultsExit3WhenTheControlRoomStopsTheRun() throws Exception {
        serve(false);
        try (Rtbox run = ctl("run", "a1", "timer", "-D", "60s", "--max-latency", "1000000")) {
            stopWhenRunning();
            Rtbox.Result r = run.awaitExit(60);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
        }
        Path p = plan("remote", "60s", LENIENT);
        String runId;
        try (Rtbox planRun = ctl("plan", "a1", p.toString())) {
            stopWhenRunning();
            Rtbox.Result r = planRun.awaitExit(60);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
            Matcher m = Pattern.compile("a1: plan remote started as run (\\S+):").matcher(r.stdout());
            assertTrue(m.find(), r.stdout());
            runId = m.group(1);
        }
        try (Rtbox results = ctl("results", "a1", runId)) {
            Rtbox.Result r = results.awaitExit(60);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
        }
    }

    @Test
    void jobExits3WhenItsApplianceStallsOverTheBudget() throws Exception {
        Path p = plan("paused", "8s", STALL);
        try (Rtbox job = new Rtbox(home)) {
            Process process = job.start("job", p.toString());
            // The appliance is the job's child JVM (rtbox serve): a full GC in it, mid-cell.
            long end = System.currentTimeMillis() + 120_000;
            java.util.Optional<ProcessHandle> appliance = java.util.Optional.empty();
            while (appliance.isEmpty()) {
                assertTrue(System.currentTimeMillis() < end, "no appliance JVM under the job: " + job.err);
                Thread.sleep(100);
                appliance = process.toHandle().descendants()
                        .filter(h -> h.info().arguments().map(a -> java.util.Arrays.asList(a).contains("serve"))
                                .orElse(false))
                        .findFirst();
            }
            pauseWhenMeasuring(appliance.get().pid());
            Rtbox.Result r = job.awaitExit(120);
            assertEquals(3, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("INCONCLUSIVE"), r.stdout());
        }
    }
}
