package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/**
 * {@code rtbox firmware kernel} on a boot configuration of the image's shape (rtbox.boot.config
 * pointed at the test's file) and on a machine without one. No test here reboots.
 */
class FirmwareCommandTest {
    static final String CFG = "PROMPT 0\nDEFAULT stock\nLABEL stock\n  KERNEL /vmlinuz\nLABEL rt\n  KERNEL /vmlinuz-rt\n";
    @TempDir
    Path dir;
    final StringWriter out = new StringWriter(), err = new StringWriter();

    @AfterEach
    void noImage() {
        System.clearProperty("rtbox.boot.config");
    }

    private int run(String... args) {
        CommandLine c = new CommandLine(new FirmwareCommand());
        c.setOut(new PrintWriter(out, true));
        c.setErr(new PrintWriter(err, true));
        return c.execute(args);
    }

    @Test
    void showsAndChoosesTheNextBootsKernel() throws Exception {
        Path cfg = dir.resolve("syslinux.cfg");
        Files.writeString(cfg, CFG);
        System.setProperty("rtbox.boot.config", cfg.toString());
        assertEquals(0, run("kernel"));
        assertTrue(out.toString().contains("next boot: stock (entries: stock, rt)"), out.toString());
        assertEquals(0, run("kernel", "rt"));
        assertTrue(out.toString().contains("next boot: rt (was stock)"), out.toString());
        assertTrue(out.toString().contains("not rebooting"), out.toString());
        assertEquals(CFG.replace("DEFAULT stock", "DEFAULT rt"), Files.readString(cfg));
        assertEquals(2, run("kernel", "lowlatency"));
        assertTrue(err.toString().contains("no boot entry 'lowlatency' in " + cfg + ": it has stock, rt"), err.toString());
        assertEquals(2, run("kernel", "--reboot"));
        assertTrue(err.toString().contains("--reboot needs the ENTRY"), err.toString());
        assertEquals(CFG.replace("DEFAULT stock", "DEFAULT rt"), Files.readString(cfg));
    }

    @Test
    void offTheImageItSaysSo() {
        System.setProperty("rtbox.boot.config", dir.resolve("boot/syslinux.cfg").toString());
        assertEquals(Cli.ERROR, run("kernel", "rt"));
        assertTrue(err.toString().contains("this machine was not started from the rtbox image: there is no "
                + dir.resolve("boot/syslinux.cfg")), err.toString());
    }
}
