package rtbox.api.result;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How a culprit reads: an interrupt's handler thread (PREEMPT_RT threads every interrupt) names its interrupt. */
class CulpritTest {
    @Test
    void anInterruptsThreadNamesTheInterruptFirst() {
        Culprit t = new Culprit(Culprit.TASK, "irq/14-ata_piix", 85, 85, "SCHED_FIFO", 50, false, 120_000);
        assertEquals("IRQ 14 ata_piix, thread irq/14-ata_piix (pid 85, SCHED_FIFO 50)", t.who());
        assertEquals("IRQ 14 ata_piix, thread irq/14-ata_piix (pid 85, SCHED_FIFO 50) 120 us", t.toString());
    }

    @Test
    void otherTasksAndHardInterruptsReadAsBefore() {
        assertEquals("kworker/0:1 (pid 77, nice 0)",
                new Culprit(Culprit.TASK, "kworker/0:1", 77, 77, "SCHED_OTHER", 0, false, 1).who());
        assertEquals("IRQ 14 ata_piix", new Culprit(Culprit.IRQ, "ata_piix", 14, -1, "", 0, false, 1).who());
        assertEquals("irq_work (pid 9, SCHED_FIFO 1)",
                new Culprit(Culprit.TASK, "irq_work", 9, 9, "SCHED_FIFO", 1, false, 1).who());
    }
}
