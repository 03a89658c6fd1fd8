package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RtcDeviceTest {
    @Test
    void ioctlNumbersMatchTheKernelHeadersForBothWordSizes() {
        assertEquals(0x7005L, RtcDevice.RTC_PIE_ON);
        assertEquals(0x7006L, RtcDevice.RTC_PIE_OFF);
        assertEquals(0x4008700cL, RtcDevice.irqpSet(8));
        assertEquals(0x4004700cL, RtcDevice.irqpSet(4));
        assertEquals(RtcDevice.irqpSet(com.sun.jna.Native.LONG_SIZE), RtcDevice.RTC_IRQP_SET);
    }

    @Test
    void decodesTheInterruptWord() {
        // One periodic interrupt (RTC_PF|RTC_IRQF = 0xc0) since the last read.
        assertEquals(1, RtcDevice.interruptCount(0x1c0, 8));
        assertEquals(0xc0, RtcDevice.flags(0x1c0));
        // Three: two missed.
        assertEquals(3, RtcDevice.interruptCount(0x3c0, 4));
        // A 4-byte word with its top bit set is unsigned, not negative.
        assertEquals(0xffffffL, RtcDevice.interruptCount(0xffffffc0L, 4));
        assertEquals(0xffffffL, RtcDevice.interruptCount(0xffffffffffffffc0L, 4));
        assertEquals(0x100000000L, RtcDevice.interruptCount(0x100000000c0L, 8));
    }

    @Test
    void openOfAMissingDeviceNamesIt() {
        OsException e = assertThrows(OsException.class, () -> RtcDevice.open("/dev/rtc-does-not-exist"));
        assertEquals(Errno.ENOENT, e.errno());
        assertTrue(e.getMessage().contains("/dev/rtc-does-not-exist"), e.getMessage());
    }

    @Test
    void aDeviceThatIsNoRtcRefusesTheIoctl() throws Exception {
        try (RtcDevice d = RtcDevice.open("/dev/null")) {
            OsException e = assertThrows(OsException.class, () -> d.setRate(64));
            assertEquals(Errno.ENOTTY, e.errno());
            assertTrue(e.getMessage().contains("RTC_IRQP_SET"), e.getMessage());
        }
    }
}
