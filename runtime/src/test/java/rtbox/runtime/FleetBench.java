package rtbox.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

import rtbox.control.internal.Postgres;
import rtbox.runtime.fleet.SimulatedAppliance;
import rtbox.runtime.fleet.SimulatedFleet;

/**
 * bench/fleet's measurement (run by bench/fleet/run.sh, never by {@code mvn verify}: it runs
 * only with {@code -Drtbox.fleet.bench=true}). Issue 12's set-up on one machine: three Artemis
 * nodes (each its own JVM), {@code rtbox control} instances sharing the results in one group
 * on node 1, one PostgreSQL (fsync on, as a site runs it; track_commit_timestamp on, for each
 * row's commit time), and N simulated appliances (a third on each node first) sending the
 * real 90 KB cell of plans/quick.json.
 *
 * <p>For each fleet size, in this order:
 * <ul>
 * <li><b>burst</b>, with one control room, then with two: every appliance queues a plan's
 * cells and result at once (about {@code rtbox.fleet.burst} in all); results/s from the first
 * publish to the last row committed, each instance's share of the cells and results
 * ({@code stored_by_type} of /api/v1/ingest), CPU seconds per 1,000 results of each part;
 * <li><b>paced</b>, with two control rooms, then with one (the second stopped, so the plans
 * under way need not end): plans of 3 cells, each appliance one cell or result a minute on
 * average ({@code rtbox.fleet.cellMs}=80000: 4 messages a 240 s plan), the plans' starts
 * spread over a cell's time (so the cells' rate is steady at once; the results come from
 * the first plans' ends on, 240 s later), windows of {@code rtbox.fleet.pacedSeconds}:
 * CPU per 1,000 results at the pace a site would run, and p50/p99 from the appliance's first
 * publish to its row's commit (the simulator's clock and PostgreSQL's, one machine).
 * </ul>
 * CPU is utime + stime from /proc/PID/stat before and after (PostgreSQL: the postmaster, its
 * reaped children and its live backends); memory is each JVM's RSS and PostgreSQL's
 * processes' summed PSS (its shared buffers counted once) at the end of each phase. A warm-up
 * burst (not counted) precedes the counted ones, so the JIT has compiled the ingest.
 */
class FleetBench {
    private static final long TICK = 100;
    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private Path out;

    @AfterEach
    void stop() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                System.err.println("closing " + open.get(i) + ": " + e);
            }
        }
    }

    @Test
    void measure() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("rtbox.fleet.bench"), "bench/fleet/run.sh runs this");
        Assumptions.assumeTrue(Postgres.available(), "no PostgreSQL here (apt-get install postgresql)");
        out = Path.of(System.getProperty("rtbox.fleet.out", dir.resolve("fleet.txt").toString()));
        for (String n : System.getProperty("rtbox.fleet.appliances", "200,1000").split(",")) {
            fleetOf(Integer.parseInt(n.strip()));
            stop();
            open.clear();
        }
    }

    private void fleetOf(int n) throws Exception {
        int burst = Integer.getInteger("rtbox.fleet.burst", 2000);
        long cellMs = Long.getLong("rtbox.fleet.cellMs", 80_000);
        long pacedS = Long.getLong("rtbox.fleet.pacedSeconds", 120);
        Postgres pg = Postgres.start("track_commit_timestamp=on");
        open.add(pg);
        String jdbc = pg.newDatabase("rtbox");
        ArtemisCluster cluster = new ArtemisCluster(Files.createDirectories(dir.resolve("cluster-" + n)), 3).start();
        open.add(cluster);
        List<ControlServer> controls = new ArrayList<>();
        controls.add(control(n, 1, cluster, jdbc));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(String.format("bench%04d", i));
        }
        SimulatedFleet fleet = new SimulatedFleet(ids, i -> "pw", i -> new String[] {cluster.uri(i % 3),
            cluster.uri((i + 1) % 3), cluster.uri((i + 2) % 3)}, 30).start(Math.max(5000, n * 20L));
        open.add(fleet);
        if (!fleet.awaitConnected(180_000)) {
            throw new AssertionError("the fleet did not connect: " + fleet.stuck());
        }
        Parts parts = new Parts(pg, cluster, controls);
        write(String.format("## %d appliances (3 Artemis nodes, PostgreSQL %s, load average at start %s)", n,
                pg.sql("rtbox", "SHOW server_version"), Files.readString(Path.of("/proc/loadavg")).strip()));

        burst(pg, cluster, fleet, parts, n, burst / 2, "warm-up burst, 1 instance (not counted)");
        burst(pg, cluster, fleet, parts, n, burst, "burst, 1 instance");
        controls.add(control(n, 2, cluster, jdbc));
        parts = new Parts(pg, cluster, controls);
        burst(pg, cluster, fleet, parts, n, burst / 2, "warm-up burst, 2 instances (not counted)");
        burst(pg, cluster, fleet, parts, n, burst, "burst, 2 instances");

        // The pace last: plans then keep running while instance 2 stops, and nothing waits for them to end.
        // Appliance i's cells come at i/N of a cell's time, then every cellMs: the cells' rate is
        // steady from the start; the results (at a plan's end, 3 cells on) join later.
        fleet.runPlans(3, cellMs, cellMs);
        Thread.sleep(Long.getLong("rtbox.fleet.rampMs", 0));
        paced(pg, fleet, parts, n, pacedS, "paced, 2 instances");
        ControlServer second = controls.remove(1);
        second.close();
        parts = new Parts(pg, cluster, controls);
        Thread.sleep(20_000);
        paced(pg, fleet, parts, n, pacedS, "paced, 1 instance");
        fleet.stopPlans();

        // What the broker acknowledged in the last second of the pace is still on its way to a
        // row: wait for it (up to 30 s), so that the count below tells a loss from a delay.
        int acknowledged = fleet.acknowledged().size();
        long rows = 0;
        for (long end = System.nanoTime() + 30_000_000_000L; System.nanoTime() < end; Thread.sleep(500)) {
            rows = Long.parseLong(pg.sql("rtbox", "SELECT count(*) FROM message WHERE type IN ('cell', 'result')"));
            if (rows >= acknowledged) {
                break;
            }
        }
        long bytes = Long.parseLong(pg.sql("rtbox", "SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM"
                + " pg_partition_tree('message')")); // partitioned (site, month): the rows are in the partitions
        long database = Long.parseLong(pg.sql("rtbox", "SELECT pg_database_size('rtbox')"));
        long payload = Long.parseLong(pg.sql("rtbox", "SELECT coalesce(sum(octet_length(payload)), 0) FROM message"
                + " WHERE type IN ('cell', 'result')"));
        write(String.format(Locale.ROOT, "database: %d cells and results stored of %d acknowledged by the broker"
                + " (30 s allowed for the last to arrive); table message %.1f MB (%.1f kB a cell or result, its plan's"
                + " progress, replies and statuses counted; their JSON %.1f kB), database %.1f MB", rows,
                acknowledged, bytes / 1e6, bytes / 1e3 / rows, payload / 1e3 / rows, database / 1e6));
    }

    private ControlServer control(int n, int instance, ArtemisCluster cluster, String jdbc) throws Exception {
        // As docs/fleet.md deploys them: the group's instances on one node, the others as fallback.
        ControlServer c = new ControlServer(Files.createDirectories(dir.resolve("control-" + n + "-" + instance)),
                cluster.uri(1) + "," + cluster.uri(2) + "," + cluster.uri(0), List.of(), "jdbcUrl=" + jdbc,
                "sharedGroup=fleet", "clientId=rtbox-control-" + instance, "floodMessagesPerSecond=1000");
        open.add(c);
        return c;
    }

    /** Every appliance queues {@code total / n} cells and results at once (plans of cell time 0). */
    private void burst(Postgres pg, ArtemisCluster cluster, SimulatedFleet fleet, Parts parts, int n, int total,
            String label) throws Exception {
        int each = Math.max(2, Math.round((float) total / n));
        long before = Long.parseLong(pg.sql("rtbox", "SELECT count(*) FROM message WHERE type IN ('cell', 'result')"));
        Snapshot s0 = parts.snapshot();
        long t0 = System.currentTimeMillis();
        for (SimulatedAppliance a : fleet.appliances()) {
            a.startPlan(each - 1, 0);
        }
        long expected = before + (long) n * each;
        boolean all = awaitStored(pg, expected, 600_000);
        Snapshot s1 = parts.snapshot();
        String last = pg.sql("rtbox", "SELECT (extract(epoch FROM max(pg_xact_commit_timestamp(xmin))) * 1000)::bigint"
                + " FROM message WHERE type IN ('cell', 'result')");
        long lastCommit = Long.parseLong(last);
        long firstPublish = fleet.appliances().stream().flatMap(a -> a.firstPublished().values().stream())
                .filter(t -> t >= t0).min(Long::compare).orElse(t0);
        long count = (long) n * each;
        double seconds = (lastCommit - firstPublish) / 1000.0;
        // After the CPU snapshot: the histogram's full collection is not the burst's cost.
        long live = ArtemisCluster.histogram(cluster.pid(1)).get("Total")[1];
        write(String.format(Locale.ROOT, "%s: %d cells and results (%d each) %s in %.1f s: %.1f results/s; %s;"
                + " node1 live heap after a full collection %.0f MB", label, count, each, all ? "stored"
                : "NOT ALL stored", seconds, count / seconds, parts.costs(s0, s1, count), live / 1e6));
        // The node that holds the shared subscription once filled its heap run after run (a
        // duplicate-id cache and an address per run topic, never freed: ArtemisNode): what is
        // live after a burst is bounded, and nothing is left unstored.
        if (!all) {
            throw new AssertionError(label + ": not every cell and result was stored within 10 minutes");
        }
        if (live > maxHeapBytes() / 2) {
            throw new AssertionError(String.format(Locale.ROOT, "%s: node1 keeps %.0f MB live, more than half its heap",
                    label, live / 1e6));
        }
    }

    private static long maxHeapBytes() {
        String h = System.getProperty("rtbox.artemis.heap", "256m").toLowerCase(Locale.ROOT);
        long unit = h.endsWith("g") ? 1L << 30 : h.endsWith("m") ? 1L << 20 : h.endsWith("k") ? 1L << 10 : 1;
        return Long.parseLong(h.replaceAll("[gmk]$", "")) * unit;
    }

    /** A window of {@code seconds} at the fleet's pace: CPU per result and publish-to-commit latency. */
    private void paced(Postgres pg, SimulatedFleet fleet, Parts parts, int n, long seconds, String label)
            throws Exception {
        Snapshot s0 = parts.snapshot();
        long t0 = System.currentTimeMillis();
        Thread.sleep(seconds * 1000);
        long t1 = System.currentTimeMillis();
        Snapshot s1 = parts.snapshot();
        // Latency of what was first published in the window, once it is stored (up to a minute later).
        Map<String, Long> published = new HashMap<>();
        for (SimulatedAppliance a : fleet.appliances()) {
            a.firstPublished().forEach((k, t) -> {
                if (t >= t0 && t < t1) {
                    published.put(k.appliance() + " " + k.run() + " " + k.sequence(), t);
                }
            });
        }
        long[] latencies = new long[0];
        long committedInWindow = 0;
        for (long end = System.currentTimeMillis() + 60_000; System.currentTimeMillis() < end; Thread.sleep(2000)) {
            Map<String, Long> committed = commits(pg, t0 - 60_000);
            latencies = published.entrySet().stream().filter(e -> committed.containsKey(e.getKey()))
                    .mapToLong(e -> committed.get(e.getKey()) - e.getValue()).sorted().toArray();
            committedInWindow = committed.values().stream().filter(t -> t >= t0 && t < t1).count();
            if (latencies.length == published.size()) {
                break;
            }
        }
        write(String.format(Locale.ROOT, "%s, %.0f s: %d cells and results committed (%.2f/s, %.2f an appliance a minute);"
                + " publish to commit, of %d published in the window (%d stored): p50 %d ms, p99 %d ms, max %d ms; %s",
                label, (t1 - t0) / 1000.0, committedInWindow, committedInWindow * 1000.0 / (t1 - t0),
                committedInWindow * 60_000.0 / (t1 - t0) / n, published.size(), latencies.length,
                percentile(latencies, 0.50), percentile(latencies, 0.99),
                latencies.length == 0 ? 0 : latencies[latencies.length - 1], parts.costs(s0, s1, committedInWindow)));
    }

    /** Each cell and result row committed since {@code sinceMs}: "appliance run seq" to its commit time (ms). */
    private static Map<String, Long> commits(Postgres pg, long sinceMs) throws Exception {
        String rows = pg.sql("rtbox", "SELECT appliance || ' ' || run_id || ' ' || seq || ' ' || (extract(epoch FROM"
                + " pg_xact_commit_timestamp(xmin)) * 1000)::bigint FROM message WHERE type IN ('cell', 'result')"
                + " AND received_ms >= " + sinceMs);
        Map<String, Long> m = new HashMap<>();
        for (String line : rows.split("\n")) {
            if (!line.isBlank()) {
                int cut = line.lastIndexOf(' ');
                m.put(line.substring(0, cut), Long.parseLong(line.substring(cut + 1)));
            }
        }
        return m;
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    }

    private static boolean awaitStored(Postgres pg, long expected, long timeoutMs) throws Exception {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (Long.parseLong(pg.sql("rtbox", "SELECT count(*) FROM message WHERE type IN ('cell', 'result')"))
                    >= expected) {
                return true;
            }
            Thread.sleep(2000);
        }
        return false;
    }

    private void write(String line) throws IOException {
        System.out.println("FleetBench: " + line);
        Files.writeString(out, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /** CPU ticks and memory of each part, and what each control room had stored, at one moment. */
    private record Snapshot(Map<String, Long> ticks, Map<String, Long> memoryKb, Map<String, Long> stored) {
    }

    /** The processes measured: broker nodes, control-room instances, PostgreSQL (and this JVM, the simulator). */
    private static final class Parts {
        private final Postgres pg;
        private final Map<String, Long> jvms = new LinkedHashMap<>();
        private final List<ControlServer.Client> admins = new ArrayList<>();

        Parts(Postgres pg, ArtemisCluster cluster, List<ControlServer> controls) throws Exception {
            this.pg = pg;
            // The first instance made the admin user in the shared database; only it wrote the password down.
            String password = controls.get(0).adminPassword();
            for (ControlServer c : controls) {
                ControlServer.Client admin = c.client();
                if (admin.login("admin", password).status() != 200) {
                    throw new IllegalStateException("cannot log in to " + c.home);
                }
                admins.add(admin);
            }
            for (int i = 0; i < cluster.size(); i++) {
                jvms.put("node" + i, cluster.pid(i));
            }
            for (int i = 0; i < controls.size(); i++) {
                jvms.put("control" + (i + 1), javaOf(controls.get(i).process.pid()));
            }
            jvms.put("simulator", ProcessHandle.current().pid());
        }

        Snapshot snapshot() throws Exception {
            Map<String, Long> ticks = new LinkedHashMap<>(), memory = new LinkedHashMap<>();
            Map<String, Long> stored = new LinkedHashMap<>();
            for (Map.Entry<String, Long> e : jvms.entrySet()) {
                ticks.put(e.getKey(), stat(e.getValue(), false));
                memory.put(e.getKey(), status(e.getValue(), "VmRSS:"));
            }
            long postmaster = pg.pid();
            long t = stat(postmaster, true), pss = rollup(postmaster);
            for (long child : children(postmaster)) {
                t += stat(child, false);
                pss += rollup(child);
            }
            ticks.put("postgres", t);
            memory.put("postgres", pss);
            for (int i = 0; i < admins.size(); i++) {
                JsonObject byType = admins.get(i).get("/ingest").json().getAsJsonObject("stored_by_type");
                stored.put("control" + (i + 1), byType.get("cell").getAsLong() + byType.get("result").getAsLong());
            }
            return new Snapshot(ticks, memory, stored);
        }

        /** Each part's CPU seconds per 1,000 results, each instance's share, and each part's memory (MB). */
        String costs(Snapshot a, Snapshot b, long results) {
            StringBuilder s = new StringBuilder("CPU s per 1,000 results:");
            long brokers = 0;
            for (String part : b.ticks().keySet()) {
                long d = b.ticks().get(part) - a.ticks().getOrDefault(part, 0L);
                if (part.startsWith("node")) {
                    brokers += d;
                }
                s.append(String.format(Locale.ROOT, " %s %.2f", part, perThousand(d, results)));
            }
            s.append(String.format(Locale.ROOT, " (broker nodes together %.2f)", perThousand(brokers, results)));
            if (b.stored().size() > 1) {
                long total = 0;
                Map<String, Long> took = new LinkedHashMap<>();
                for (String c : b.stored().keySet()) {
                    long d = b.stored().get(c) - a.stored().getOrDefault(c, 0L);
                    took.put(c, d);
                    total += d;
                }
                s.append("; cells and results stored by each instance:");
                for (Map.Entry<String, Long> e : took.entrySet()) {
                    s.append(String.format(Locale.ROOT, " %s %d (%.0f %%)", e.getKey(), e.getValue(),
                            100.0 * e.getValue() / Math.max(1, total)));
                }
            }
            s.append("; memory MB (RSS, PostgreSQL PSS):");
            b.memoryKb().forEach((k, v) -> s.append(String.format(Locale.ROOT, " %s %.0f", k, v / 1024.0)));
            return s.toString();
        }

        private static double perThousand(long ticks, long results) {
            return results == 0 ? 0 : ticks / (double) TICK / results * 1000;
        }

        /** The JVM of a launcher process: itself (the launcher execs java) or its java child. */
        private static long javaOf(long pid) throws IOException {
            if (Files.readString(Path.of("/proc/" + pid + "/comm")).strip().equals("java")) {
                return pid;
            }
            return children(pid).stream().findFirst().orElse(pid);
        }

        /** utime + stime (and, for a parent that reaps its children, cutime + cstime), in ticks. */
        private static long stat(long pid, boolean withChildren) {
            try {
                String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                return withChildren ? t + Long.parseLong(f[13]) + Long.parseLong(f[14]) : t;
            } catch (IOException e) {
                return 0; // gone: a backend that ended (its time is in the postmaster's cutime)
            }
        }

        private static long status(long pid, String field) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).strip().split(" ")[0]);
                }
            }
            return 0;
        }

        private static long rollup(long pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
                    if (line.startsWith("Pss:")) {
                        return Long.parseLong(line.substring(4).strip().split(" ")[0]);
                    }
                }
            } catch (IOException e) {
                // gone
            }
            return 0;
        }

        private static List<Long> children(long parent) throws IOException {
            List<Long> pids = new ArrayList<>();
            try (Stream<Path> all = Files.list(Path.of("/proc"))) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    String name = p.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    try {
                        String s = Files.readString(p.resolve("stat"));
                        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                        if (Long.parseLong(f[1]) == parent) {
                            pids.add(Long.parseLong(name));
                        }
                    } catch (IOException e) {
                        // gone meanwhile
                    }
                }
            }
            return pids;
        }
    }
}
