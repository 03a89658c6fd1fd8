package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * The graph under emulated ISO in the real appliance: its client processes are ISO tasks
 * of the supervisor (demoted with the driver, each demotion and promotion an event of the
 * cell's report, the iso_* figures beside the graph's), and a kill -9 of the appliance
 * leaves none of them behind at an RT policy.
 */
class GraphIsoIT {
    private static final int CPU = Math.max(0, Runtime.getRuntime().availableProcessors() - 1);

    @TempDir
    Path home;

    @Test
    void aGraphOverIsoCpuIsDemotedAndTheReportSaysWhen() throws Exception {
        Path plan = home.resolve("iso.json");
        Files.writeString(plan, "{\"rtbox_plan\": 1, \"name\": \"iso\", \"probe\": \"graph\", \"duration\": \"6s\","
                + " \"warmup\": \"1s\", \"policy\": \"iso@25\", \"tuning\": {\"iso_period_ms\": 1000},"
                + " \"parameters\": {\"interval_us\": 10000, \"cpus\": [" + CPU + "], \"options\": {\"load\": \"70\","
                + " \"ends\": \"processes\"}}}");
        Path out = home.resolve("report");
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(180, "plan", "run", plan.toString(), "--report", out.toString());
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        }
        JsonObject cell = JsonParser.parseString(Files.readString(out.resolve("report.json"))).getAsJsonObject()
                .getAsJsonArray("cells").get(0).getAsJsonObject();
        JsonObject report = cell.getAsJsonObject("report");
        JsonObject f = report.getAsJsonObject("result").getAsJsonObject("figures");
        assertTrue(f.has("xruns") && f.has("iso_demotions") && f.has("iso_peak_share_pct"), f.toString());
        // 70 % of the CPU asked of the ISO class against iso_cpu 25: demoted within the run. (Not 50: a
        // spin on this VM can take half the time once the other vCPU, its hyperthread sibling, quiets
        // down after the warm-up, and the graph then measures 35 %.)
        assertTrue(f.get("iso_demotions").getAsDouble() >= 1, f.toString());
        long demoteEvents = 0;
        for (JsonElement e : report.getAsJsonArray("events")) {
            if (e.getAsJsonObject().get("kind").getAsString().equals("iso.demote")) {
                demoteEvents++;
            }
        }
        assertEquals((long) f.get("iso_demotions").getAsDouble(), demoteEvents, report.get("events").toString());
        String threads = cell.getAsJsonObject("policyChanges").get("iso.threads").getAsString();
        assertTrue(threads.startsWith("15 on 1 CPU"), "the driver and its 14 client processes: " + threads);
    }

    @Test
    void killMinus9LeavesNoClientAtAnRtPolicy() throws Exception {
        Path plan = home.resolve("long.json");
        Files.writeString(plan, "{\"rtbox_plan\": 1, \"name\": \"long\", \"probe\": \"graph\", \"duration\": \"60s\","
                + " \"warmup\": \"1s\", \"policy\": \"iso@70\", \"parameters\": {\"interval_us\": 10000, \"cpus\": ["
                + CPU + "], \"options\": {\"load\": \"30\", \"ends\": \"processes\"}}}");
        List<Integer> clients = new ArrayList<>();
        try (Rtbox rtbox = new Rtbox(home)) {
            Process p = rtbox.start("plan", "run", plan.toString());
            long end = System.currentTimeMillis() + 60_000;
            while (clients.size() < 14 && System.currentTimeMillis() < end) {
                Thread.sleep(100);
                clients.clear();
                for (int child : children(p.pid())) {
                    if (policy(child) == 2) { // SCHED_RR: the ISO band
                        clients.add(child);
                    }
                }
            }
            assertEquals(14, clients.size(), "the graph's 14 client processes at the ISO band: " + clients);
        } // close(): SIGKILL of the appliance
        long end = System.currentTimeMillis() + 5000;
        while (clients.stream().anyMatch(GraphIsoIT::alive) && System.currentTimeMillis() < end) {
            Thread.sleep(50);
        }
        for (int c : clients) {
            assertFalse(alive(c) && policy(c) != 0, "client " + c + " outlived the appliance at an RT policy");
        }
        assertFalse(clients.stream().anyMatch(GraphIsoIT::alive), "a client outlived the appliance");
    }

    /** The child processes of every thread of a process. */
    private static List<Integer> children(long pid) throws Exception {
        List<Integer> list = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    for (String c : Files.readString(t.resolve("children")).trim().split("\\s+")) {
                        if (!c.isEmpty()) {
                            list.add(Integer.parseInt(c));
                        }
                    }
                } catch (java.io.IOException e) {
                    // the thread ended
                }
            }
        }
        return list;
    }

    /** The process's scheduling policy (field 41 of /proc/PID/stat), -1 when gone. */
    private static int policy(int pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return f[0].equals("Z") ? -1 : Integer.parseInt(f[38]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    private static boolean alive(int pid) {
        return policy(pid) >= 0;
    }
}
