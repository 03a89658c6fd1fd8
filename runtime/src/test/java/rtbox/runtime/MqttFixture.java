package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What every MQTT integration test holds: a broker, an appliance, a control room; all closed after each test. */
abstract class MqttFixture {
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    Mosquitto broker;
    Rtbox rtbox;
    ControlRoom control;

    /** A broker of the test's own, the appliance a1 serving on it, and a control room reading every up tree. */
    void serve(boolean persistentBroker) throws Exception {
        broker = new Mosquitto(brokerDir, persistentBroker, MqttIT.A, "b1");
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, MqttIT.A);
        rtbox.start("serve");
        awaitOnline();
    }

    /** {@code rtbox ctl VERB} with the broker and the control room's credentials, then {@code args}. */
    String[] ctlCommand(String verb, String... args) {
        String[] all = new String[args.length + 5];
        all[0] = "ctl";
        all[1] = verb;
        all[2] = "--broker=" + broker.uri();
        all[3] = "--user=" + Mosquitto.CONTROL;
        all[4] = "--password=" + Mosquitto.PASSWORD;
        System.arraycopy(args, 0, all, 5, args.length);
        return all;
    }

    void awaitOnline() throws InterruptedException {
        assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.json().get("state").getAsString().equals("online"), 30_000), "a1 not online: " + rtbox.err);
    }

    /** The distinct sequence numbers received for {@code run} of a1, sorted. */
    List<Long> sequences(String run) {
        return control.all(m -> m.topic().startsWith("rtbox/v1/up/a1/runs/" + run + "/")).stream()
                .map(m -> m.json().get("sequence").getAsLong()).distinct().sorted().toList();
    }

    /** {@code run}'s messages carry the sequence numbers 1..last, each once: none lost, none doubled. */
    void assertGapless(String run, long last) {
        List<Long> seqs = sequences(run);
        assertEquals(last, seqs.size(), "sequence numbers " + seqs);
        for (int i = 0; i < seqs.size(); i++) {
            assertEquals(i + 1, seqs.get(i), "sequence numbers " + seqs);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        if (control != null) {
            control.close();
        }
        if (rtbox != null) {
            rtbox.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
