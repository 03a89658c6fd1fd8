package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot deployment on the running appliance: a bundle dropped into deploy/ registers
 * its service within 2 s, its thread is gone after the jar is removed, and a bundle
 * installed while running is still there after a restart.
 */
class DeployIT {
    @TempDir
    Path home;
    @TempDir
    Path work;

    private static final String ACTIVATOR = """
            package fixture;
            import java.util.Hashtable;
            import org.osgi.framework.*;
            public class Activator implements BundleActivator {
                private Thread worker;
                public void start(BundleContext context) {
                    worker = new Thread(() -> {
                        try { while (true) Thread.sleep(50); } catch (InterruptedException e) { }
                    }, "rtbox-fixture");
                    worker.start();
                    Hashtable<String, Object> props = new Hashtable<>();
                    props.put("rtbox.probe", "fixture");
                    context.registerService(Object.class, new Object(), props);
                }
                public void stop(BundleContext context) throws InterruptedException {
                    worker.interrupt();
                    worker.join();
                }
            }
            """;

    private Path fixtureBundle() throws IOException {
        Path src = work.resolve("src/fixture/Activator.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, ACTIVATOR);
        Path classes = work.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "--release", "17", "-cp", System.getProperty("java.class.path"), "-d",
                classes.toString(), src.toString());
        assertEquals(0, rc, "fixture did not compile");
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "rtbox.test.fixture");
        a.putValue("Bundle-Version", "1.0.0");
        a.putValue("Bundle-Activator", "fixture.Activator");
        a.putValue("Import-Package", "org.osgi.framework;version=\"[1.8,2)\"");
        Path jar = work.resolve("fixture.jar");
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(os, mf)) {
            j.putNextEntry(new JarEntry("fixture/Activator.class"));
            j.write(Files.readAllBytes(classes.resolve("fixture/Activator.class")));
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void droppedBundleStartsAndRemovedBundleLeavesNoThread() throws Exception {
        Path jar = fixtureBundle();
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.start("serve");
            assertTrue(rtbox.awaitLine("serving", 60_000) > 0, "appliance did not come up: " + rtbox.err);
            long baseline = rtbox.threadNames().size();

            long dropped = System.currentTimeMillis();
            Path target = home.resolve("deploy/fixture.jar");
            Files.copy(jar, home.resolve("deploy/fixture.tmp"));
            Files.move(home.resolve("deploy/fixture.tmp"), target, StandardCopyOption.ATOMIC_MOVE);
            long seen = rtbox.awaitLine("probe 'fixture' from rtbox.test.fixture 1.0.0 available", 10_000);
            assertTrue(seen > 0, "service never registered: " + rtbox.out);
            assertTrue(seen - dropped <= 2000, "service registered after " + (seen - dropped) + " ms, over 2 s");
            assertTrue(rtbox.threadNames().contains("rtbox-fixture"));

            Files.delete(target);
            assertTrue(rtbox.awaitLine("probe 'fixture' from rtbox.test.fixture 1.0.0 gone", 10_000) > 0);
            long end = System.currentTimeMillis() + 2000;
            while (rtbox.threadNames().contains("rtbox-fixture") && System.currentTimeMillis() < end) {
                Thread.sleep(20);
            }
            List<String> threads = rtbox.threadNames();
            assertFalse(threads.contains("rtbox-fixture"), "the bundle's thread outlived it");
            assertTrue(threads.size() <= baseline + 1, "threads " + threads.size() + " vs baseline " + baseline);
            rtbox.terminate();
        }
    }

    /**
     * A killed appliance leaves nothing behind in the shared temporary folder. FileInstall's
     * watchers (etc/ and deploy/) work in a fixed folder of the framework's storage: left to
     * themselves they make java.io.tmpdir/fileinstall-RANDOM each, removed only at a clean exit,
     * so every killed appliance left two behind in /tmp. And the JVM's own temporary files
     * (bnd's launcher copies the jars rtbox.jar embeds, about 1.3 MB, as resourceNNN.jar) go to
     * a folder of that JVM's (RTBOX_TMP/jvm-PID), which the launcher removes at its next start.
     */
    @Test
    void aKilledApplianceLeavesNothingInTmp() throws Exception {
        Path jar = fixtureBundle();
        Path tmp = Files.createDirectories(work.resolve("tmp"));
        long pid;
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.env.put("RTBOX_TMP", tmp.toString());
            rtbox.start("serve");
            assertTrue(rtbox.awaitLine("serving", 60_000) > 0, "appliance did not come up: " + rtbox.err);
            pid = rtbox.pid();
            Files.copy(jar, home.resolve("deploy/fixture.jar"));
            // the deploy/ watcher is running (its folder made) once it installed the bundle
            assertTrue(rtbox.awaitLine("probe 'fixture'", 10_000) > 0, "deploy/ not watched: " + rtbox.out);
        } // killed (SIGKILL), as a crash
        Path own = tmp.resolve("jvm-" + pid);
        try (java.util.stream.Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of("jvm-" + pid), left.map(p -> p.getFileName().toString()).toList(),
                    "only the killed JVM's own folder in " + tmp);
        }
        try (java.util.stream.Stream<Path> inOwn = Files.list(own)) {
            assertTrue(inOwn.anyMatch(p -> p.getFileName().toString().startsWith("resource")),
                    "bnd's launcher copied its jars elsewhere than the JVM's folder " + own);
        }
        assertTrue(Files.isDirectory(home.resolve("data/framework/fileinstall/etc")));
        assertTrue(Files.isDirectory(home.resolve("data/framework/fileinstall/deploy")));
        // the next start, whatever the command, removes the folders of JVMs that are gone
        try (Rtbox next = new Rtbox(home)) {
            next.env.put("RTBOX_TMP", tmp.toString());
            assertEquals(0, next.run(60, "--version").exitCode());
        }
        assertFalse(Files.exists(own), own + " outlived its JVM's next start");
    }

    @Test
    void bundleInstalledWhileRunningIsThereAfterARestart() throws Exception {
        Path jar = fixtureBundle();
        try (Rtbox first = new Rtbox(home)) {
            first.start("serve");
            assertTrue(first.awaitLine("serving", 60_000) > 0);
            Files.copy(jar, home.resolve("deploy/fixture.jar"));
            assertTrue(first.awaitLine("probe 'fixture'", 10_000) > 0);
            first.terminate();
        }
        Path data = home.resolve("data/framework");
        assertTrue(Files.isDirectory(data), "framework storage was not kept");
        try (Rtbox second = new Rtbox(home)) {
            second.start("serve");
            assertTrue(second.awaitLine("serving", 60_000) > 0);
            assertTrue(second.out.stream().anyMatch(l -> l.contains("probe 'fixture'")),
                    "the bundle installed while running is gone after the restart: " + second.out);
            second.terminate();
        }
    }
}
