package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

/**
 * The MQTT side's life cycle: its configuration removed and restored leaves no
 * thread of its own or of Paho behind; a network that silently stops forwarding
 * mid-run is survived; 100 remote install/update/uninstall cycles of a bundle with
 * a thread leave thread count and open files at baseline.
 */
class MqttLifecycleIT {
    static final String A = MqttIT.A;
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    @TempDir
    Path work;
    Mosquitto broker;
    Rtbox rtbox;
    ControlRoom control;
    Blackhole proxy;

    @AfterEach
    void tearDown() throws Exception {
        if (control != null) {
            control.close();
        }
        if (rtbox != null) {
            rtbox.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private void start() throws Exception {
        broker = new Mosquitto(brokerDir, A);
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        awaitOnline(1);
    }

    private void awaitOnline(int times) throws InterruptedException {
        long end = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < end) {
            if (control.all(m -> m.topic().equals("rtbox/v1/up/a1/status") && m.payload().contains("\"online\""))
                    .size() >= times) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("a1 did not come online (" + times + "); stderr: " + rtbox.err);
    }

    private List<String> mqttThreads() throws IOException {
        return rtbox.threadNames().stream().filter(t -> t.startsWith("MQTT") || t.startsWith("rtbox-mqtt")).toList();
    }

    private int openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/" + rtbox.pid() + "/fd"))) {
            return (int) fds.count();
        }
    }

    @Test
    void configurationRemovedLeavesNoThreadAndRestoredReconnects() throws Exception {
        start();
        Path cfg = home.resolve("etc/rtbox.mqtt.cfg");
        String text = Files.readString(cfg);
        for (int round = 1; round <= 3; round++) {
            assertTrue(!mqttThreads().isEmpty(), "round " + round + ": no MQTT thread while online");
            // By arrival time, not by count: the appliance may repeat its online status (its heartbeat,
            // and once more as its probes register at start), so counting them says nothing.
            long removed = System.currentTimeMillis();
            Files.delete(cfg);
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status") && m.atMs() >= removed
                    && m.payload().contains("\"offline\""), 10_000), "round " + round + ": no offline status");
            long end = System.currentTimeMillis() + 5000;
            while (!mqttThreads().isEmpty() && System.currentTimeMillis() < end) {
                Thread.sleep(50);
            }
            assertEquals(List.of(), mqttThreads(), "threads left after the component stopped");
            long restored = System.currentTimeMillis();
            Files.writeString(cfg, text);
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status") && m.atMs() >= restored
                    && m.payload().contains("\"online\""), 30_000), "round " + round + ": not online again: " + rtbox.err);
        }
    }

    @Test
    void networkBlackholeMidRunIsSurvived() throws Exception {
        broker = new Mosquitto(brokerDir, A);
        proxy = new Blackhole(broker.port);
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        Path cfg = home.resolve("etc/rtbox.mqtt.cfg");
        Files.writeString(cfg, Files.readString(cfg).replace(broker.uri(), proxy.uri()));
        rtbox.start("serve");
        awaitOnline(1);
        String id = control.command(A, "run", "\"probe\":\"timer\",\"parameters\":{\"duration\":\"8s\",\"warmup\":\"0\"}");
        String run = control.reply(A, id, 10_000).json().getAsJsonObject("body").get("run").getAsString();
        assertNotNull(control.await(m -> m.topic().endsWith("/runs/" + run + "/progress")
                && m.json().get("percent").getAsInt() >= 10, 15_000));
        proxy.cut();
        // Fixed on purpose: a 6 s network cut, the outage the appliance must ride out.
        Thread.sleep(6000);
        proxy.restore();
        ControlRoom.Received result = control.await(m -> m.topic().endsWith("/runs/" + run + "/result"), 60_000);
        assertNotNull(result, "no result after the network came back; stderr: " + rtbox.err);
        long last = result.json().get("sequence").getAsLong();
        List<Long> seqs = control.all(m -> m.topic().startsWith("rtbox/v1/up/a1/runs/" + run + "/")).stream()
                .map(m -> m.json().get("sequence").getAsLong()).distinct().sorted().toList();
        assertEquals(last, seqs.size(), "sequence numbers " + seqs);
    }

    @Test
    void hundredBundleCyclesLeaveThreadsAndFilesAtBaseline() throws Exception {
        start();
        byte[] v1 = fixture("1.0.0");
        byte[] v2 = fixture("2.0.0");
        cycle(v1, v2);
        // Fixed on purpose (here and after the cycles): a stopped bundle's threads end asynchronously, unannounced.
        Thread.sleep(500);
        int threads = rtbox.threadNames().size();
        int files = openFiles();
        long t0 = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            cycle(v1, v2);
        }
        double perCycleMs = (System.nanoTime() - t0) / 1e6 / 100;
        Thread.sleep(500);
        System.out.printf("[mqtt] 100 install/update/uninstall cycles: %.1f ms a cycle; threads %d -> %d,"
                + " open files %d -> %d%n", perCycleMs, threads, rtbox.threadNames().size(), files, openFiles());
        // At most the baseline: a pool thread of the framework may end meanwhile, none may be left over.
        assertTrue(rtbox.threadNames().size() <= threads, "threads after 100 cycles: " + rtbox.threadNames());
        assertTrue(rtbox.threadNames().stream().noneMatch(t -> t.startsWith("rtbox-threaded")),
                "the fixture's thread outlived its bundle: " + rtbox.threadNames());
        assertTrue(openFiles() <= files + 2, "open files " + files + " -> " + openFiles());
    }

    private void cycle(byte[] v1, byte[] v2) throws Exception {
        JsonObject r = control.reply(A, control.command(A, "install", bundle(v1)), 10_000).json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        r = control.reply(A, control.command(A, "update", "\"bundle\":\"rtbox.test.threaded\"," + bundle(v2)), 10_000)
                .json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        r = control.reply(A, control.command(A, "uninstall", "\"bundle\":\"rtbox.test.threaded\""), 10_000).json();
        assertEquals(200, r.get("code").getAsInt(), r.toString());
    }

    private static String bundle(byte[] jar) throws Exception {
        return "\"data\":\"" + Base64.getEncoder().encodeToString(jar) + "\",\"sha256\":\""
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar)) + "\"";
    }

    private static final String ACTIVATOR = """
            package threaded;
            import org.osgi.framework.*;
            public class Activator implements BundleActivator {
                private Thread worker;
                public void start(BundleContext context) {
                    worker = new Thread(() -> {
                        try { while (true) Thread.sleep(20); } catch (InterruptedException e) { }
                    }, "rtbox-threaded-fixture");
                    worker.start();
                }
                public void stop(BundleContext context) throws InterruptedException {
                    worker.interrupt();
                    worker.join();
                }
            }
            """;

    /** A bundle whose activator starts a thread and joins it on stop. */
    private byte[] fixture(String version) throws IOException {
        Path src = work.resolve("src/threaded/Activator.java");
        Path classes = work.resolve("classes");
        if (!Files.exists(classes.resolve("threaded/Activator.class"))) {
            Files.createDirectories(src.getParent());
            Files.writeString(src, ACTIVATOR);
            Files.createDirectories(classes);
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            int rc = javac.run(null, null, null, "--release", "17", "-cp", System.getProperty("java.class.path"),
                    "-d", classes.toString(), src.toString());
            assertEquals(0, rc, "fixture did not compile");
        }
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "rtbox.test.threaded");
        a.putValue("Bundle-Version", version);
        a.putValue("Bundle-Activator", "threaded.Activator");
        a.putValue("Import-Package", "org.osgi.framework;version=\"[1.8,2)\"");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream j = new JarOutputStream(out, mf)) {
            j.putNextEntry(new JarEntry("threaded/Activator.class"));
            j.write(Files.readAllBytes(classes.resolve("threaded/Activator.class")));
            j.closeEntry();
        }
        return out.toByteArray();
    }
}
