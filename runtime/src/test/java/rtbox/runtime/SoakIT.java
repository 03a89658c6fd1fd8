package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.MqttClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's soak, the CI version: bench/soak/run.sh, as it is, for {@code -Drtbox.soak.minutes}
 * (the script's own default is an hour), sampling every {@code -Drtbox.soak.interval} seconds
 * (30 by default, so that ten minutes give a verdict on enough samples). It runs only when
 * {@code rtbox.soak.minutes} is given ({@code mvn verify -Drtbox.soak.minutes=10}; .ci/run runs
 * the script itself, beside the image's boot test, or so with RTBOX_CI_SOAK_IN_VERIFY=1): ten minutes.
 * The script must end 0: every judged series (RSS, threads, open files, heap and
 * metaspace after a full collection, the outbox) flat within 10 %, and no message lost. Its
 * output is printed whole (the figures); soak.csv, soak.svg and the appliance's log are copied
 * to runtime/target/soak/.
 */
class SoakIT {
    static final String MINUTES_PROPERTY = System.getProperty("rtbox.soak.minutes", "");
    static final double MINUTES = MINUTES_PROPERTY.isBlank() ? 0 : Double.parseDouble(MINUTES_PROPERTY);
    static final String INTERVAL = System.getProperty("rtbox.soak.interval", "30");
    @TempDir
    Path out;

    @Test
    // Not the tests' default 6 minutes: the soak's own wait (its duration and 5 minutes) bounds it.
    @org.junit.jupiter.api.Timeout(value = 48, unit = java.util.concurrent.TimeUnit.HOURS)
    void plansSwapsAndCommandsForTenMinutesLeaveTheApplianceFlat() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(MINUTES > 0,
                "the soak runs with -Drtbox.soak.minutes=N (10 in CI once switched on in .ci/run)");
        Path paho = Path.of(MqttClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ProcessBuilder pb = new ProcessBuilder("bash", Path.of("..", "bench", "soak", "run.sh").toString(),
                Double.toString(MINUTES), INTERVAL, out.toString()).redirectErrorStream(true);
        pb.environment().put("RTBOX_JAR", Path.of(System.getProperty("rtbox.jar")).toAbsolutePath().toString());
        pb.environment().put("SOAK_PAHO", paho.toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        Thread drain = new Thread(() -> {
            try {
                p.getInputStream().transferTo(System.out);
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        drain.start();
        boolean ended = p.waitFor((long) (MINUTES * 60) + 300, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        drain.join(5000);
        System.out.printf("SoakIT: bench/soak/run.sh %s min, ended after %.1f min%n", MINUTES,
                (System.nanoTime() - t0) / 60e9);
        assertTrue(ended, "the soak did not end within its duration and 5 minutes");
        // Kept beside the build for a person to look at (the temporary folder goes).
        Path keep = Path.of("target", "soak");
        Files.createDirectories(keep);
        for (String f : new String[] {"soak.csv", "soak.svg", "appliance.log"}) {
            if (Files.exists(out.resolve(f))) {
                Files.copy(out.resolve(f), keep.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        List<String> csv = Files.readAllLines(out.resolve("soak.csv"), StandardCharsets.UTF_8);
        assertTrue(csv.size() >= 8, "soak.csv has " + csv.size() + " lines");
        assertTrue(Files.readString(out.resolve("soak.svg")).contains("<polyline"), "no plot");
        assertEquals(0, p.exitValue(), "the soak's verdict (output above): a series grew, a message was lost,"
                + " or it could not run");
    }
}
