package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/**
 * One of rtbox.jar's own bundles updated over MQTT across a restart (issue 15): rtbox.jar's
 * manifest has per-entry digests, so bnd's launcher no longer updates every bundle at every
 * start, and the update stays. While it does, help is answered by the framework, not from
 * rtbox.jar's classes (rtbox.runtime.launch.NoFramework compares the launcher's records);
 * with rtbox.jar's own bundles only, it is answered without the framework.
 */
class MqttBundleRestartIT extends MqttFixture {
    private static final String TRACE = "rtbox.launch: the framework answers";

    @Test
    void anUpdateOfAnEmbeddedBundleIsKeptAcrossARestartAndTheFrameworkThenAnswersHelp() throws Exception {
        serve(false);
        rtbox.terminate();
        // The storage holds rtbox.jar's bundles as the launcher installed them: no framework for help.
        Rtbox.Result help = help();
        assertEquals(0, help.exitCode(), help.stderr());
        assertFalse(help.stderr().contains(TRACE), help.stderr());

        restart();
        byte[] updated = renamedVersion(embeddedJar("rtbox.probe.tsc-"), "0.1.0.updated");
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(updated));
        JsonObject r = reply(control.command(MqttIT.A, "update", "\"bundle\":\"rtbox.probe.tsc\",\"data\":\""
                + Base64.getEncoder().encodeToString(updated) + "\",\"sha256\":\"" + sha + "\""));
        assertEquals(200, r.get("code").getAsInt(), r.toString());
        rtbox.terminate();

        // Kept across the restart: the launcher did not put rtbox.jar's back.
        restart();
        assertEquals("0.1.0.updated", version(reply(control.command(MqttIT.A, "bundles", "")), "rtbox.probe.tsc"));
        rtbox.terminate();
        help = help();
        assertEquals(0, help.exitCode(), help.stderr());
        assertTrue(help.stdout().contains("Usage: rtbox"), help.stdout());
        assertTrue(help.stderr().contains(TRACE) && help.stderr().contains("is not rtbox.jar's build"),
                "help was answered from rtbox.jar's classes beside an updated bundle: " + help.stderr());
    }

    private Rtbox.Result help() throws Exception {
        try (Rtbox h = new Rtbox(home)) {
            h.env.put("RTBOX_JAVA_OPTS", "-Drtbox.launch.trace=true");
            return h.run(120, "--help");
        }
    }

    private void restart() throws Exception {
        rtbox.close();
        synchronized (control.received) {
            control.received.clear(); // the last start's "online" must not count
        }
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, MqttIT.A);
        rtbox.start("serve");
        awaitOnline();
    }

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(MqttIT.A, requestId, 10_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }

    private static String version(JsonObject bundlesReply, String symbolicName) {
        for (var e : bundlesReply.getAsJsonObject("body").getAsJsonArray("bundles")) {
            JsonObject b = e.getAsJsonObject();
            if (symbolicName.equals(b.get("symbolicName").getAsString())) {
                return b.get("version").getAsString();
            }
        }
        throw new AssertionError(symbolicName + " is not in " + bundlesReply);
    }

    /** The bundle jar rtbox.jar embeds (jar/NAME...jar). */
    private static byte[] embeddedJar(String namePrefix) throws Exception {
        try (JarFile j = new JarFile(System.getProperty("rtbox.jar"))) {
            var entry = j.stream().filter(x -> x.getName().startsWith("jar/" + namePrefix)
                    && x.getName().endsWith(".jar")).findFirst().orElseThrow();
            try (InputStream in = j.getInputStream(entry)) {
                return in.readAllBytes();
            }
        }
    }

    /** The same bundle with another Bundle-Version: other bytes, the same classes. */
    private static byte[] renamedVersion(byte[] jar, String version) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarInputStream in = new JarInputStream(new java.io.ByteArrayInputStream(jar))) {
            Manifest mf = in.getManifest();
            mf.getMainAttributes().putValue("Bundle-Version", version);
            try (JarOutputStream j = new JarOutputStream(out, mf)) {
                for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                    j.putNextEntry(new JarEntry(e.getName()));
                    in.transferTo(j);
                    j.closeEntry();
                }
            }
        }
        return out.toByteArray();
    }
}
