package rtbox.runtime;

import java.nio.file.Path;

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
