package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The appliance without rtbox.plan (issue 14): the real rtbox.jar with that bundle,
 * rtbox.job (which reports plans, so needs it) and rtbox.regression (which reads plan reports
 * for rtbox compare, a tool of the PC and not of a lean appliance) taken out, as a lean
 * appliance would be built. It still measures and reports a run on the command line and serves over MQTT; the
 * plan commands and verbs are absent and say which bundle they need.
 */
class WithoutPlanIT extends MqttFixture {
    private static final List<String> LEFT_OUT = List.of("jar/rtbox.plan-", "jar/rtbox.job-",
            "jar/rtbox.regression-");
    @TempDir
    Path jarDir;

    /** A copy of rtbox.jar without the bundles of {@link #LEFT_OUT}, in its launcher's list and as entries. */
    private Path leanJar() throws IOException {
        Path lean = jarDir.resolve("rtbox.jar");
        int removed = 0;
        try (ZipFile in = new ZipFile(System.getProperty("rtbox.jar"));
                ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(lean))) {
            for (ZipEntry e : in.stream().toList()) {
                if (LEFT_OUT.stream().anyMatch(e.getName()::startsWith)) {
                    removed++;
                    continue;
                }
                byte[] data;
                try (InputStream s = in.getInputStream(e)) {
                    data = s.readAllBytes();
                }
                if (e.getName().equals("launcher.properties")) {
                    data = withoutLeftOut(new String(data, StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1);
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                out.putNextEntry(copy);
                out.write(data);
                out.closeEntry();
            }
        }
        assertEquals(LEFT_OUT.size(), removed, "rtbox.jar should embed each of " + LEFT_OUT);
        return lean;
    }

    private static String withoutLeftOut(String properties) {
        return Arrays.stream(properties.split("\n", -1)).map(line -> !line.startsWith("launch.bundles=") ? line
                : "launch.bundles=" + Arrays.stream(line.substring("launch.bundles=".length()).split(","))
                        .filter(b -> LEFT_OUT.stream().noneMatch(b::startsWith)).collect(Collectors.joining(",")))
                .collect(Collectors.joining("\n"));
    }

    private Rtbox lean() throws IOException {
        Rtbox r = new Rtbox(home);
        r.env.put("RTBOX_JAR", leanJar().toString());
        return r;
    }

    @Test
    void runMeasuresAndReportsAndPlanCommandsNameTheMissingBundle() throws Exception {
        rtbox = lean();
        Path json = home.resolve("out/run.json");
        Path html = home.resolve("out/run.html");
        Rtbox.Result r = rtbox.run(120, "run", "timer", "-D", "1s", "-i", "1000", "--json", json.toString(),
                "--html", html.toString());
        assertEquals(0, r.exitCode(), r.stdout() + "\n" + r.stderr());
        assertTrue(r.stdout().contains("T: 0"), r.stdout());
        assertTrue(r.stdout().contains("MEASURED"), r.stdout());
        assertTrue(Files.size(json) > 0 && Files.size(html) > 0, "result files written");
        assertFalse(r.stderr().contains("Exception") || r.stderr().contains("Error:"), r.stderr());

        r = rtbox.run(120, "run", "timer", "-D", "1s", "--junit", home.resolve("out/j.xml").toString());
        assertEquals(2, r.exitCode(), r.stdout() + "\n" + r.stderr());
        assertTrue(r.stderr().contains("--junit and --csv need the bundle rtbox.plan"), r.stderr());
        assertTrue(r.stdout().contains("T: 0"), "the run was measured and shown before: " + r.stdout());

        for (String[] args : List.of(new String[] {"plan", "check", "plans/quick.json"},
                new String[] {"plan", "run", "plans/quick.json"}, new String[] {"results"})) {
            r = rtbox.run(120, args);
            assertEquals(2, r.exitCode(), String.join(" ", args) + ": " + r.stdout() + "\n" + r.stderr());
            assertTrue(r.stderr().contains("need the bundle rtbox.plan, which is not installed"),
                    String.join(" ", args) + ": " + r.stderr());
        }
    }

    @Test
    void servesOverMqttWithThePlanVerbsAbsent() throws Exception {
        broker = new Mosquitto(brokerDir, MqttIT.A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = lean();
        MqttIT.configure(rtbox, broker, MqttIT.A);
        rtbox.start("serve");
        awaitOnline();

        JsonObject bundles = reply(control.command(MqttIT.A, "bundles", ""));
        assertEquals(200, bundles.get("code").getAsInt(), bundles.toString());
        List<String> names = new ArrayList<>();
        for (JsonElement b : bundles.getAsJsonObject("body").getAsJsonArray("bundles")) {
            names.add(b.getAsJsonObject().get("symbolicName").getAsString());
        }
        assertFalse(names.contains("rtbox.plan"), names.toString());
        assertTrue(names.contains("rtbox.cli") && names.contains("rtbox.report"), names.toString());
        for (JsonElement b : bundles.getAsJsonObject("body").getAsJsonArray("bundles")) {
            JsonObject o = b.getAsJsonObject();
            if (o.get("symbolicName").getAsString().startsWith("rtbox.")) {
                assertEquals("ACTIVE", o.get("state").getAsString(), o.toString());
            }
        }
        String verbs = bundles.getAsJsonObject("body").get("verbs").toString();
        assertTrue(verbs.contains("\"run\"") && !verbs.contains("\"plan\""), verbs);

        JsonObject plan = reply(control.command(MqttIT.A, "plan", "\"plan\":{\"name\":\"x\",\"cells\":[]}"));
        assertEquals(404, plan.get("code").getAsInt(), plan.toString());
        assertTrue(plan.get("message").getAsString().contains("rtbox.plan"), plan.toString());

        JsonObject run = reply(control.command(MqttIT.A, "run", MqttIT.RUN));
        assertEquals(200, run.get("code").getAsInt(), run.toString());
        String id = run.getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + id + "/result"),
                60_000);
        assertNotNull(result, "no result of " + id + "; stderr: " + rtbox.err);
        assertEquals("MEASURED", result.json().get("verdict").getAsString(), result.payload());
        assertTrue(result.json().get("samples").getAsLong() > 0, result.payload());
    }

    private JsonObject reply(String requestId) throws InterruptedException {
        ControlRoom.Received r = control.reply(MqttIT.A, requestId, 10_000);
        assertNotNull(r, "no reply to " + requestId + "; stderr: " + rtbox.err);
        return r.json();
    }
}
