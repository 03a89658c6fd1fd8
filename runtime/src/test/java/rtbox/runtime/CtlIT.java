package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rtbox ctl} against a real appliance on a real mosquitto: list shows it,
 * run follows it to its result and exits with the verdict, swap installs a bundle,
 * and an appliance that does not answer makes ctl exit 2 naming it.
 */
class CtlIT {
    static final String A = MqttIT.A;
    @TempDir
    Path home;
    @TempDir
    Path ctlHome;
    @TempDir
    Path brokerDir;
    Mosquitto broker;
    Rtbox rtbox;

    @AfterEach
    void tearDown() throws Exception {
        if (rtbox != null) {
            rtbox.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private Rtbox.Result ctl(String... args) throws Exception {
        String[] all = new String[args.length + 4];
        all[0] = "ctl";
        all[1] = args[0];
        all[2] = "--broker=" + broker.uri();
        all[3] = "--user=" + Mosquitto.CONTROL;
        all[4] = "--password=" + Mosquitto.PASSWORD;
        System.arraycopy(args, 1, all, 5, args.length - 1);
        try (Rtbox c = new Rtbox(Files.createTempDirectory(ctlHome, "ctl"))) {
            return c.run(120, all);
        }
    }

    @Test
    void listRunSwapAndAnApplianceThatDoesNotAnswer() throws Exception {
        broker = new Mosquitto(brokerDir, A);
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        try (ControlRoom control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD,
                "rtbox/v1/up/+/status")) {
            assertNotNull(control.await(m -> m.payload().contains("\"online\""), 30_000), "not online: " + rtbox.err);
        }
        Rtbox.Result list = ctl("list");
        assertEquals(0, list.exitCode(), list.stderr());
        assertTrue(list.stdout().contains("a1") && list.stdout().contains("online"), list.stdout());
        // Each appliance's rtbox and its commit, as its own --version says them (issue 16).
        String version;
        try (Rtbox v = new Rtbox(Files.createTempDirectory(ctlHome, "v"))) {
            version = v.run(120, "--version").stdout().lines().findFirst().orElseThrow().substring("rtbox ".length());
        }
        assertTrue(list.stdout().contains("VERSION"), list.stdout());
        assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith("a1 ") && l.contains(" " + version + " ")),
                version + " in\n" + list.stdout());

        Rtbox.Result run = ctl("run", "a1", "timer", "-D", "1s");
        // No thresholds given: MEASURED, exit 0, never PASS (issue 16).
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("a1: started run"), run.stdout());
        assertTrue(run.stdout().matches("(?s).*a1: MEASURED max .*"), run.stdout());

        Path jar = ctlHome.resolve("fixture.jar");
        Files.write(jar, MqttCommandsIT.fixtureJar());
        Rtbox.Result swap = ctl("swap", "a1", jar.toString());
        assertEquals(0, swap.exitCode(), swap.stderr());
        assertTrue(swap.stdout().contains("installed and started rtbox.test.mqttfixture"), swap.stdout());

        Rtbox.Result none = ctl("run", "nobody", "timer", "-D", "1s");
        assertEquals(2, none.exitCode(), none.stdout());
        assertTrue(none.stderr().contains("nobody: no reply"), none.stderr());
    }
}
