package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The previous settings of a set-config on trial go back as they were (issue 33): a Double
 * setting was written as its long (2.5 as 2), and a file whose numbers are not what it wrote
 * (a timeout of 2.5 s) does not read and is removed, not read as 2 s.
 */
class ConfigTrialTest {
    @Test
    void previousSettingsGoBackExactly(@TempDir Path dir) throws Exception {
        Dictionary<String, Object> previous = new Hashtable<>();
        previous.put("ratio", 2.5);
        previous.put("keepAliveSeconds", 30);
        previous.put("outboxMaxBytes", 9007199254740993L);
        previous.put("brokers", new String[] {"tcp://a:1883"});
        previous.put("service.pid", "rtbox.mqtt");
        ConfigTrial.begin(dir, "r1", List.of("keepAliveSeconds"), 30, previous);
        Dictionary<String, Object> back = ConfigTrial.read(dir).previousProperties();
        assertEquals(2.5, back.get("ratio"));
        assertEquals(30L, back.get("keepAliveSeconds"));
        assertEquals(9007199254740993L, back.get("outboxMaxBytes"));
        assertEquals("tcp://a:1883", ((String[]) back.get("brokers"))[0]);
        assertNull(back.get("service.pid"));
    }

    @Test
    void aFileWithAFractionalTimeoutDoesNotReadAndIsRemoved(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(ConfigTrial.FILE), "{\"requestId\":\"r1\",\"state\":\"trying\",\"keys\":[\"k\"],"
                + "\"timeoutSeconds\":2.5,\"previous\":{}}", StandardCharsets.UTF_8);
        assertNull(ConfigTrial.read(dir));
        assertFalse(Files.exists(dir.resolve(ConfigTrial.FILE)));
    }
}
