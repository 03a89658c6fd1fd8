package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The preemption model from what the kernel says, as Debian's stock and PREEMPT_RT kernels say it. */
class PreemptionTest {
    /** uname -v of the image's two kernels (Debian 12, 6.1.0-57). */
    static final String STOCK = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-20)",
            RT = "#1 SMP PREEMPT_RT Debian 6.1.192-3 (2026-11-20)";

    @Test
    void aRealTimeKernelIsNamedPreemptRtByItsSysfsFlagOrItsVersion() {
        assertEquals("PREEMPT_RT", Preemption.model(RT, "1", null, null));
        assertEquals("PREEMPT_RT", Preemption.model(RT, null, null, null));
        assertEquals("PREEMPT_RT", Preemption.model("#1 SMP", "1\n", null, null));
        // the flag wins over a dynamic mode, should a kernel offer both
        assertEquals("PREEMPT_RT", Preemption.model(RT, "1", "none voluntary (full)", null));
    }

    @Test
    void theStockKernelIsNamedByTheModeItRunsIn() {
        assertEquals("PREEMPT_DYNAMIC (full)", Preemption.model(STOCK, null, "none voluntary (full)", null));
        assertEquals("PREEMPT_DYNAMIC (voluntary)", Preemption.model(STOCK, "0", "none (voluntary) full", "preempt=full"));
        assertEquals("PREEMPT_DYNAMIC (mode unknown: debugfs not mounted)", Preemption.model(STOCK, null, null, null));
        // the image mounts no debugfs: the mode its SYSLINUX entry set at boot
        assertEquals("PREEMPT_DYNAMIC (full, set by preempt=full)", Preemption.model(STOCK, null, null,
                "root=/dev/sda2 console=ttyS0,115200n8 preempt=full rtbox.kernel=stock\n"));
        assertEquals("PREEMPT_DYNAMIC (mode unknown: debugfs not mounted)", Preemption.model(STOCK, null, null,
                "root=/dev/sda2 preempt=fast"));
    }

    @Test
    void olderModelsAndNothingKnown() {
        assertEquals("PREEMPT", Preemption.model("#1 SMP PREEMPT Tue Jan 1", null, null, null));
        assertTrue(Preemption.model("#1 SMP Tue Jan 1", null, null, null).startsWith("none or voluntary"));
        assertEquals("unknown", Preemption.model(null, null, null, null));
    }

    @Test
    void thisMachinesModelIsOneOfThem() {
        String m = Preemption.model();
        assertTrue(m.startsWith("PREEMPT") || m.startsWith("none") || m.equals("unknown"), m);
        assertEquals(m.equals("PREEMPT_RT"), Preemption.realtime());
    }
}
