import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.paho.client.mqttv3.IMqttMessageListener;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * bench/soak's driver and sampler (started by run.sh, with Paho on the class path): keeps a
 * real appliance busy over MQTT, as a control room would, for the whole duration, and samples
 * the appliance's process from outside every interval.
 *
 * <p>Work, in a loop: a plan of two 5 s cells (timer; timer under the pipe workload), waited for
 * to its result; two swaps of the pipe workload bundle ({@code update}, two versions in turn);
 * the commands status, bundles, results, get-config and selftest. Every run's messages are
 * counted by (run, sequence): sent (the result's sequence number, the last of the run),
 * received, lost.
 *
 * <p>Samples (CSV, one row an interval): RSS, threads and open files from /proc; heap used and
 * metaspace used after a full collection ({@code jcmd PID GC.run}, then {@code GC.heap_info});
 * the result journal's size; the outbox's files and bytes.
 *
 * <p>Warm-up: before the first sample that counts, 150 swaps back to back (the update path's
 * classes and compiled code level off after some 150 swaps: MqttCorpusIT), 1000 commands (the
 * remembered requests, bounded at 1000 and 2 MiB of replies, filled) and one plan. The
 * first sample is taken before the warm-up and shown, not judged. Verdict per series: the
 * median of the last three samples against the median of the first three after the warm-up;
 * more than 10 % higher (counts: 10 % + 1) is "grew". The journal grows with the plans run until
 * its bound (journalMaxBytes of rtbox.plan, JOURNAL_MAX), where its oldest runs are dropped: it
 * is judged against that bound (at most one plan over it), and its growth a plan is printed.
 *
 * <pre>java -cp PAHO Soak.java BROKER_URI PASSWORD APPLIANCE PID MINUTES INTERVAL_S OUT PIPE_JAR JOURNAL OUTBOX
 * JOURNAL_MAX</pre>
 * Exit 0: every series flat and nothing lost; 1: a series grew or a message was lost; 2: the
 * soak could not run.
 */
public class Soak {
    static final String[] SERIES = {"rss_kb", "threads", "fds", "heap_used_kb", "metaspace_kb", "journal_bytes",
        "outbox_files", "outbox_bytes"};
    /** Series judged by their growth (the journal is judged against its bound). */
    static final Set<String> JUDGED = Set.of("rss_kb", "threads", "fds", "heap_used_kb", "metaspace_kb",
        "outbox_files", "outbox_bytes");
    static final int WARM_UP_SWAPS = 150, WARM_UP_REQUESTS = 1000;

    final String appliance;
    final long pid;
    final MqttClient client;
    final Map<String, String> replies = new ConcurrentHashMap<>();
    final Map<String, Set<Long>> sequences = new ConcurrentHashMap<>();
    final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    final String[] versions = new String[2];
    long plans, swaps, commands;
    volatile String failure;

    Soak(String broker, String password, String appliance, long pid, Path pipeJar) throws Exception {
        this.appliance = appliance;
        this.pid = pid;
        client = new MqttClient(broker, "soak-control-" + UUID.randomUUID(), new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setUserName("control");
        o.setPassword(password.toCharArray());
        o.setCleanSession(true);
        o.setAutomaticReconnect(true);
        o.setMaxInflight(100);
        client.connect(o);
        IMqttMessageListener listener = (topic, m) -> {
            String p = new String(m.getPayload(), StandardCharsets.UTF_8);
            String[] t = topic.split("/");
            if (t.length == 6 && t[4].equals("reply")) {
                replies.put(t[5], p);
            } else if (t.length == 7 && t[4].equals("runs")) {
                long seq = number(p, "sequence");
                sequences.computeIfAbsent(t[5], k -> ConcurrentHashMap.newKeySet()).add(seq);
                if (t[6].equals("result")) {
                    lastSequence.put(t[5], seq);
                }
            }
        };
        client.subscribe("rtbox/v1/up/" + appliance + "/#", 1, listener);
        for (int i = 0; i < 2; i++) {
            byte[] jar = version(pipeJar, "0.2." + (i + 1) + ".soak");
            versions[i] = "\"bundle\":\"rtbox.workload.pipe\",\"data\":\"" + Base64.getEncoder().encodeToString(jar)
                    + "\",\"sha256\":\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar))
                    + "\"";
        }
    }

    static long number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The pipe bundle with another Bundle-Version. */
    static byte[] version(Path original, String v) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarFile in = new JarFile(original.toFile())) {
            Manifest mf = new Manifest(in.getManifest());
            mf.getMainAttributes().putValue("Bundle-Version", v);
            try (JarOutputStream jar = new JarOutputStream(out, mf)) {
                for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                    JarEntry entry = e.nextElement();
                    if (entry.getName().equals("META-INF/MANIFEST.MF")) {
                        continue;
                    }
                    jar.putNextEntry(new JarEntry(entry.getName()));
                    try (InputStream is = in.getInputStream(entry)) {
                        is.transferTo(jar);
                    }
                    jar.closeEntry();
                }
            }
        }
        return out.toByteArray();
    }

    /** Sends a command, waits for its reply; returns it, or fails the soak when none comes in 60 s. */
    String command(String verb, String body) throws Exception {
        String id = UUID.randomUUID().toString();
        String json = "{\"requestId\":\"" + id + "\",\"expires\":\"" + Instant.now().plusSeconds(600) + "\""
                + (body.isEmpty() ? "" : "," + body) + "}";
        client.publish("rtbox/v1/down/" + appliance + "/cmd/" + verb, json.getBytes(StandardCharsets.UTF_8), 1, false);
        commands++;
        long end = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < end) {
            String r = replies.remove(id);
            if (r != null) {
                return r;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no reply to " + verb + " in 60 s");
    }

    String ok(String verb, String body) throws Exception {
        String r = command(verb, body);
        if (number(r, "code") != 200) {
            throw new IllegalStateException(verb + " answered " + r.substring(0, Math.min(400, r.length())));
        }
        return r;
    }

    static final String PLAN = "\"plan\":{\"rtbox_plan\":1,\"name\":\"soak\",\"probe\":\"timer\",\"duration\":\"5s\","
            + "\"cells\":[{\"name\":\"bare\"},{\"name\":\"pipe\",\"loads\":[\"pipe:mode=rtt\"]}]}";

    /** One plan, to its result. */
    void plan() throws Exception {
        String r = ok("plan", PLAN);
        Matcher m = Pattern.compile("\"run\"\\s*:\\s*\"([^\"]+)\"").matcher(r);
        if (!m.find()) {
            throw new IllegalStateException("no run id in " + r);
        }
        String run = m.group(1);
        long end = System.currentTimeMillis() + 120_000;
        while (!lastSequence.containsKey(run)) {
            if (System.currentTimeMillis() > end) {
                throw new IllegalStateException("no result for plan run " + run + " in 120 s");
            }
            Thread.sleep(20);
        }
        plans++;
    }

    void swap() throws Exception {
        ok("update", versions[(int) (swaps++ % 2)]);
    }

    void commands() throws Exception {
        ok("status", "");
        ok("bundles", "");
        ok("results", "\"limit\":5");
        ok("get-config", "\"pid\":\"rtbox.mqtt\"");
        command("selftest", ""); // 500 when the disk is nearly full: answered is what counts
    }

    /** Messages of every run: sent (the result's sequence, 1..n), received (distinct), lost. */
    long[] counts() throws InterruptedException {
        Thread.sleep(2000); // the last result's messages settle
        long sent = 0, received = 0;
        for (Map.Entry<String, Long> e : lastSequence.entrySet()) {
            sent += e.getValue();
            received += sequences.getOrDefault(e.getKey(), Set.of()).stream().filter(s -> s >= 1 && s <= e.getValue())
                    .count();
        }
        return new long[] {sent, received, sent - received};
    }

    // ---- sampling

    static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + command + ": " + out);
        }
        return out;
    }

    static long dirBytes(Path dir, String suffix, boolean count) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        long n = 0;
        try (var s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                if (f.getFileName().toString().endsWith(suffix)) {
                    n += count ? 1 : Files.size(f);
                }
            }
        }
        return n;
    }

    /** One row: the series in SERIES order. */
    long[] sample(Path journal, Path outbox) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        String heap = jcmd(pid, "GC.heap_info");
        long used = 0;
        Matcher m = Pattern.compile("(?m)^\\s*(def new generation|tenured generation)\\s+total \\d+K, used (\\d+)K")
                .matcher(heap);
        while (m.find()) {
            used += Long.parseLong(m.group(2));
        }
        Matcher meta = Pattern.compile("Metaspace\\s+used (\\d+)K").matcher(heap);
        long metaspace = meta.find() ? Long.parseLong(meta.group(1)) : -1;
        long rss = 0, threads = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("Threads:")) {
                threads = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        long fds;
        try (var s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds = s.count();
        }
        return new long[] {rss, threads, fds, used, metaspace, Files.exists(journal) ? Files.size(journal) : 0,
            dirBytes(outbox, ".msg", true), dirBytes(outbox, ".msg", false)};
    }

    static long median3(List<long[]> rows, int from, int series) {
        long[] v = rows.subList(from, Math.min(rows.size(), from + 3)).stream().mapToLong(r -> r[series]).sorted()
                .toArray();
        return v[v.length / 2];
    }

    public static void main(String[] a) throws Exception {
        String broker = a[0], password = a[1], appliance = a[2];
        long pid = Long.parseLong(a[3]);
        double minutes = Double.parseDouble(a[4]);
        long intervalMs = (long) (Double.parseDouble(a[5]) * 1000);
        Path out = Path.of(a[6]), pipeJar = Path.of(a[7]), journal = Path.of(a[8]), outbox = Path.of(a[9]);
        long journalMax = a.length > 10 ? Long.parseLong(a[10]) : 16L * 1024 * 1024;
        Files.createDirectories(out);
        long t0 = System.nanoTime();
        long end = t0 + (long) (minutes * 60e9);
        Soak soak = new Soak(broker, password, appliance, pid, pipeJar);
        List<long[]> rows = new ArrayList<>();
        List<Long> at = new ArrayList<>();
        List<long[]> work = new ArrayList<>();
        Path csv = out.resolve("soak.csv");
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv))) {
            w.println("elapsed_s," + String.join(",", SERIES) + ",plans,swaps,commands,phase");
            long[] first = soak.sample(journal, outbox);
            w.printf(Locale.ROOT, "%d,%s,0,0,0,start%n", 0, join(first));
            w.flush();
            System.out.printf("soak: %s for %.1f min, a sample every %d s; before the warm-up: %s%n", appliance,
                    minutes, intervalMs / 1000, describe(first));
            for (int i = 0; i < WARM_UP_SWAPS; i++) {
                soak.swap();
            }
            // The appliance remembers the last 1000 requests' replies (at most 2 MiB) to answer a
            // repeat: filled to its bound here, or its bounded filling reads as growth (10.4 ->
            // 11.7 MB of heap over the 468 commands of a 10-minute soak).
            for (int i = 0; i < WARM_UP_REQUESTS; i++) {
                soak.ok("bundles", "");
            }
            soak.plan();
            soak.commands();
            long next = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now >= next) {
                    long[] row = soak.sample(journal, outbox);
                    long elapsed = (now - t0) / 1_000_000_000L;
                    rows.add(row);
                    at.add(elapsed);
                    work.add(new long[] {soak.plans, soak.swaps, soak.commands});
                    w.printf(Locale.ROOT, "%d,%s,%d,%d,%d,soak%n", elapsed, join(row), soak.plans, soak.swaps,
                            soak.commands);
                    w.flush();
                    System.out.printf("soak: %4d s  %s  plans %d, swaps %d, commands %d%n", elapsed, describe(row),
                            soak.plans, soak.swaps, soak.commands);
                    next += intervalMs * 1_000_000L;
                }
                if (System.nanoTime() + 20e9 > end) {
                    break; // a last round would overrun the duration
                }
                soak.plan();
                soak.swap();
                soak.swap();
                soak.commands();
            }
            // The last sample at the end.
            long[] row = soak.sample(journal, outbox);
            long elapsed = (System.nanoTime() - t0) / 1_000_000_000L;
            rows.add(row);
            at.add(elapsed);
            work.add(new long[] {soak.plans, soak.swaps, soak.commands});
            w.printf(Locale.ROOT, "%d,%s,%d,%d,%d,end%n", elapsed, join(row), soak.plans, soak.swaps, soak.commands);
        } catch (Exception e) {
            System.out.println("soak: FAILED: " + e);
            e.printStackTrace(System.out);
            System.exit(2);
        }
        long[] c = soak.counts();
        soak.client.disconnect();
        soak.client.close();
        boolean flat = true;
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%-14s %12s %12s %12s %12s %8s  %s%n", "series", "first", "start",
                "end", "max", "growth", "verdict"));
        if (rows.size() < 6) {
            System.out.println("soak: only " + rows.size() + " samples; at least 6 are needed for a verdict:"
                    + " run longer or sample more often");
            System.exit(2);
        }
        long[] before = parseFirst(csv);
        for (int s = 0; s < SERIES.length; s++) {
            long start = median3(rows, 0, s), stop = median3(rows, rows.size() - 3, s);
            final int si = s;
            long max = rows.stream().mapToLong(r -> r[si]).max().getAsLong();
            double growth = start == 0 ? (stop == 0 ? 0 : Double.POSITIVE_INFINITY) : 100.0 * (stop - start) / start;
            boolean count = SERIES[s].equals("threads") || SERIES[s].equals("fds") || SERIES[s].equals("outbox_files");
            // The outbox is near empty between runs (a run's messages, and those kept 10 s after their
            // acknowledgement): it grew when it holds more than 50 files or 1 MiB beyond its start.
            long slack = SERIES[s].equals("outbox_files") ? 50 : SERIES[s].equals("outbox_bytes") ? 1 << 20 : count ? 1 : 0;
            boolean grew = stop > start * 1.10 + slack;
            String verdict;
            if (!JUDGED.contains(SERIES[s])) {
                // Past its bound by at most one plan (a plan's records, 145 kB here, before the compaction
                // that follows its end): 1 MiB of slack.
                boolean bounded = max <= journalMax + (1 << 20);
                flat &= bounded;
                verdict = String.format(Locale.ROOT, "%s (journalMaxBytes %d)", bounded ? "bounded" : "OVER ITS BOUND",
                        journalMax);
            } else {
                verdict = grew ? "GREW over 10 %" : "flat";
                flat &= !grew;
            }
            table.append(String.format(Locale.ROOT, "%-14s %12d %12d %12d %12d %7.1f%%  %s%n", SERIES[s], before[s],
                    start, stop, max, growth, verdict));
        }
        System.out.println("soak: " + rows.size() + " samples over " + at.get(at.size() - 1) + " s; " + soak.plans
                + " plans, " + soak.swaps + " swaps (" + WARM_UP_SWAPS + " of them warm-up), " + soak.commands
                + " commands");
        System.out.println("soak: 'first' before the warm-up (not judged); 'start' and 'end' the medians of the first"
                + " three samples after the warm-up and of the last three");
        System.out.print(table);
        System.out.printf("soak: messages of %d runs: sent %d, received %d, lost %d%n", soak.lastSequence.size(), c[0],
                c[1], c[2]);
        Path svg = out.resolve("soak.svg");
        Files.writeString(svg, plot(at, rows, appliance));
        System.out.println("soak: " + csv + ", " + svg);
        boolean ok = flat && c[2] == 0;
        System.out.println("soak: verdict: " + (ok ? "flat, nothing lost" : (flat ? "" : "a series grew; ")
                + (c[2] == 0 ? "" : c[2] + " messages lost")));
        System.exit(ok ? 0 : 1);
    }

    static long[] parseFirst(Path csv) throws IOException {
        String[] f = Files.readAllLines(csv).get(1).split(",");
        return Arrays.stream(f, 1, 1 + SERIES.length).mapToLong(Long::parseLong).toArray();
    }

    static String join(long[] row) {
        return String.join(",", Arrays.stream(row).mapToObj(Long::toString).toList());
    }

    static String describe(long[] r) {
        return String.format(Locale.ROOT, "RSS %d kB, %d threads, %d fds, heap %d kB, metaspace %d kB, journal %d B,"
                + " outbox %d files %d B", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    }

    /** Small multiples, one panel a series, each from 0 to 1.2 x its maximum: a flat line is flat to the eye. */
    static String plot(List<Long> at, List<long[]> rows, String appliance) {
        int w = 420, h = 170, cols = 2, pad = 45;
        int panels = SERIES.length;
        StringBuilder s = new StringBuilder();
        int height = (panels + cols - 1) / cols * h + 30;
        s.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'"
                + " font-family='sans-serif' font-size='11'>%n<rect width='100%%' height='100%%' fill='white'/>%n",
                cols * w, height));
        s.append(String.format(Locale.ROOT, "<text x='8' y='18' font-size='13'>bench/soak: appliance %s, %d samples"
                + " over %d s (after a full GC each)</text>%n", appliance, rows.size(), at.get(at.size() - 1)));
        long tMin = at.get(0), tMax = Math.max(at.get(at.size() - 1), tMin + 1);
        for (int p = 0; p < panels; p++) {
            int x0 = (p % cols) * w + pad, y0 = 30 + (p / cols) * h + 15;
            int pw = w - pad - 15, ph = h - 45;
            final int si = p;
            long max = Math.max(1, rows.stream().mapToLong(r -> r[si]).max().getAsLong());
            double top = max * 1.2;
            s.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>%s (max %d)</text>%n", x0, y0 - 3, SERIES[p], max));
            s.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#999'/>%n",
                    x0, y0, pw, ph));
            s.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='end'>0</text>"
                    + "<text x='%d' y='%d' text-anchor='end'>%.0f</text>%n", x0 - 3, y0 + ph, x0 - 3, y0 + 10, top));
            s.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>%d s</text><text x='%d' y='%d' text-anchor='end'>"
                    + "%d s</text>%n", x0, y0 + ph + 13, tMin, x0 + pw, y0 + ph + 13, tMax));
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < rows.size(); i++) {
                double x = x0 + (double) (at.get(i) - tMin) / (tMax - tMin) * pw;
                double y = y0 + ph - rows.get(i)[p] / top * ph;
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            s.append(String.format(Locale.ROOT, "<polyline fill='none' stroke='#1f77b4' stroke-width='1.5'"
                    + " points='%s'/>%n", pts.toString().trim()));
        }
        s.append("</svg>\n");
        return s.toString();
    }
}
