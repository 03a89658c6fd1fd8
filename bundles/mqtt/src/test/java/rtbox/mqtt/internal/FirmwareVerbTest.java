package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonParser;

import rtbox.api.RtboxException;

/**
 * The {@code firmware} verb on a boot configuration of the image's shape (rtbox.boot.config
 * pointed at a file of the test's): the next boot's kernel chosen, told, refused with the field
 * named; off the image a clear 404. No test here reboots: the only reboot asked for is refused
 * (a run is under way) before anything is done.
 */
class FirmwareVerbTest {
    static final String CFG = "PROMPT 0\nDEFAULT stock\n\nLABEL stock\n  KERNEL /vmlinuz\n  APPEND rtbox.kernel=stock\n"
            + "\nLABEL rt\n  KERNEL /vmlinuz-rt\n  APPEND rtbox.kernel=rt\n";
    @TempDir
    Path dir;
    Path cfg;
    Station station;
    final FirmwareVerb verb = new FirmwareVerb();

    @BeforeEach
    void image() throws Exception {
        cfg = dir.resolve("boot/syslinux.cfg");
        Files.createDirectories(cfg.getParent());
        Files.writeString(cfg, CFG);
        System.setProperty("rtbox.boot.config", cfg.toString());
        station = new Station("a1", null, dir, dir.resolve("plans"), new Outbox(dir.resolve("outbox"), 1L << 20), null,
                null);
    }

    @AfterEach
    void noImage() {
        System.clearProperty("rtbox.boot.config");
    }

    private Reply send(String body) throws RtboxException {
        return verb.execute("firmware", JsonParser.parseString(body).getAsJsonObject(), "r1", station);
    }

    @Test
    void choosesTheNextBootsKernelWithoutRebooting() throws Exception {
        Reply r = send("{\"kernel\":\"rt\"}");
        assertEquals(200, r.code(), r.message());
        assertEquals("rt", r.body().get("next").getAsString());
        assertEquals("stock", r.body().get("was").getAsString());
        assertEquals(false, r.body().get("reboot").getAsBoolean());
        assertTrue(r.message().startsWith("the next boot starts 'rt' (was 'stock'); not rebooting"), r.message());
        assertEquals(CFG.replace("DEFAULT stock", "DEFAULT rt"), Files.readString(cfg));
        assertNull(station.takeAfterReply(), "nothing to do after the reply: no reboot");
    }

    @Test
    void withoutAKernelItOnlyTells() throws Exception {
        Reply r = send("{}");
        assertEquals(200, r.code());
        assertEquals("stock", r.body().get("next").getAsString());
        assertEquals("[\"stock\",\"rt\"]", r.body().get("entries").toString());
        assertEquals(CFG, Files.readString(cfg));
    }

    @Test
    void badBodiesAreRefusedNamingTheFieldAndChangeNothing() throws Exception {
        RtboxException e = assertThrows(RtboxException.class, () -> send("{\"kernel\":\"lowlatency\"}"));
        assertEquals("kernel", e.subject());
        assertEquals("kernel 'lowlatency' is not an entry of " + cfg + ": it has stock, rt", e.getMessage());
        assertEquals("kernel", assertThrows(RtboxException.class, () -> send("{\"kernel\":7}")).subject());
        assertEquals("reboot", assertThrows(RtboxException.class, () -> send("{\"kernel\":\"rt\",\"reboot\":\"yes\"}"))
                .subject());
        assertEquals("kernel", assertThrows(RtboxException.class, () -> send("{\"reboot\":true}")).subject());
        assertEquals(CFG, Files.readString(cfg));
    }

    @Test
    void noRebootWhileARunIsUnderWay() throws Exception {
        RunSession run = new RunSession("r7", "timer", RunSession.PLAN, dir.resolve("run.active"));
        assertNull(station.activity().claim(run, () -> { }, () -> { }));
        Reply r = send("{\"kernel\":\"rt\",\"reboot\":true}");
        assertEquals(409, r.code());
        assertTrue(r.message().startsWith("no reboot now: ") && r.message().endsWith("; nothing was changed"), r.message());
        assertEquals(CFG, Files.readString(cfg));
        assertNull(station.takeAfterReply());
    }

    @Test
    void aMachineThatIsNotTheImageIsToldSo() throws Exception {
        Files.delete(cfg);
        Reply r = send("{\"kernel\":\"rt\"}");
        assertEquals(404, r.code());
        assertTrue(r.message().startsWith("this machine was not started from the rtbox image: there is no " + cfg),
                r.message());
        assertTrue(!Files.exists(cfg));
    }

    @Test
    void theVerbIsFirmware() {
        assertEquals(java.util.Set.of("firmware"), verb.verbs());
    }
}
