package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input exits 2 with a message that names the bad value, before anything is measured. */
class BadInputIT {
    @TempDir
    Path home;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "priority 100     | run timer -p 100 -D 1s            | priority 100 is out of range",
        "interval 0       | run timer -i 0 -D 1s              | interval 0 us is out of range",
        "unknown probe    | run nosuch -D 1s                  | unknown probe 'nosuch'",
        "negative time    | run timer -D -5s                  | duration '-5s' is negative",
        "missing CPU      | run timer -a 99 -D 1s             | CPU 99 does not exist",
        "unknown policy   | run timer --policy deadline -D 1s | unknown policy 'deadline'",
    })
    void exitsTwoNamingTheValue(String what, String args, String message) throws Exception {
        try (Rtbox rtbox = new Rtbox(home)) {
            Rtbox.Result r = rtbox.run(60, args.trim().split("\\s+"));
            assertEquals(2, r.exitCode(), what + ": " + r.stdout() + r.stderr());
            assertTrue(r.stderr().contains(message), what + ": stderr was: " + r.stderr());
        }
    }
}
