package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The SYSLINUX configuration's entries and default, and the text with another default. */
class BootConfigTest {
    /** The image's file (image/files/syslinux.cfg) with a factory's parameters added to one entry. */
    static final String IMAGE = "SERIAL 0 115200\n"
            + "PROMPT 0\n"
            + "TIMEOUT 0\n"
            + "DEFAULT stock\n"
            + "\n"
            + "LABEL stock\n"
            + "  KERNEL /vmlinuz\n"
            + "  INITRD /initrd.gz\n"
            + "  APPEND root=/dev/sda2 preempt=full rtbox.kernel=stock rtbox.mode=appliance rtbox.id=line3-cell2\n"
            + "\n"
            + "LABEL rt\n"
            + "  KERNEL /vmlinuz-rt\n"
            + "  INITRD /initrd-rt.gz\n"
            + "  APPEND root=/dev/sda2 rtbox.kernel=rt rtbox.mode=appliance\n";

    @Test
    void readsTheEntriesAndTheDefault() {
        BootConfig c = BootConfig.parse(IMAGE);
        assertEquals(List.of("stock", "rt"), c.labels());
        assertEquals("stock", c.defaultLabel());
    }

    @Test
    void anotherDefaultChangesTheDefaultLineOnly() {
        String rt = BootConfig.parse(IMAGE).withDefault("rt");
        assertEquals(IMAGE.replace("DEFAULT stock\n", "DEFAULT rt\n"), rt);
        assertEquals("rt", BootConfig.parse(rt).defaultLabel());
        // and back: the text it started from, byte for byte
        assertEquals(IMAGE, BootConfig.parse(rt).withDefault("stock"));
    }

    @Test
    void keywordsInAnyCaseIndentationAndWindowsLineEndingsAreKept() {
        String dos = "  default Stock\r\nlabel Stock\r\n  kernel /vmlinuz\r\nLabel rt\r\n  kernel /vmlinuz-rt\r\n";
        BootConfig c = BootConfig.parse(dos);
        assertEquals(List.of("Stock", "rt"), c.labels());
        assertEquals("Stock", c.defaultLabel());
        assertEquals(dos.replace("  default Stock", "  default rt"), c.withDefault("rt"));
    }

    @Test
    void theLastDefaultCountsAndEveryDefaultLineIsChanged() {
        String two = "DEFAULT stock\nLABEL stock\nLABEL rt\nDEFAULT rt\n";
        assertEquals("rt", BootConfig.parse(two).defaultLabel());
        assertEquals("DEFAULT stock\nLABEL stock\nLABEL rt\nDEFAULT stock\n", BootConfig.parse(two).withDefault("stock"));
    }

    @Test
    void withoutADefaultOneIsPutBeforeTheFirstEntry() {
        String none = "PROMPT 0\nLABEL stock\n  KERNEL /vmlinuz\nLABEL rt\n";
        BootConfig c = BootConfig.parse(none);
        assertNull(c.defaultLabel());
        assertEquals("PROMPT 0\nDEFAULT rt\nLABEL stock\n  KERNEL /vmlinuz\nLABEL rt\n", c.withDefault("rt"));
    }

    @Test
    void wordsThatOnlyStartWithAKeywordAreNotKeywords() {
        BootConfig c = BootConfig.parse("DEFAULTS x\nLABELS y\nLABEL stock\nDEFAULT stock\n");
        assertEquals(List.of("stock"), c.labels());
        assertEquals("stock", c.defaultLabel());
    }

    @Test
    void anEntryTheFileDoesNotHaveIsRefusedNamingThoseItHas() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BootConfig.parse(IMAGE).withDefault("lowlatency"));
        assertEquals("no boot entry 'lowlatency': the boot configuration has stock, rt", e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BootConfig.parse("PROMPT 0\n").withDefault("rt"))
                .getMessage().endsWith("has none"));
    }
}
