package rtbox.api.result;

import java.util.Locale;

/**
 * What held a probe's CPU during a spike, from the kernel's own trace: a task (a
 * thread of this JVM, of another process, or a kernel thread), an interrupt handler
 * or a softirq, with the time it held the CPU between the deadline and the wake-up.
 *
 * @param kind {@link #TASK}, {@link #IRQ} or {@link #SOFTIRQ}
 * @param name the task's name (comm), the interrupt's handler name (ata_piix) or the
 *        softirq's name (NET_RX)
 * @param id the task's thread id, the interrupt number or the softirq number
 * @param pid for a task, its process id (thread group); 0 when unknown; -1 otherwise
 * @param policy for a task, its scheduling policy (SCHED_FIFO, SCHED_OTHER), else ""
 * @param priority for a task, its RT priority (1-99) or its nice value (SCHED_OTHER)
 * @param ownJvm true for a thread of the JVM that ran the probe
 * @param durationNs how long it held the CPU inside the spike's window
 * @since 1.1
 */
public record Culprit(String kind, String name, int id, int pid, String policy, int priority, boolean ownJvm,
        long durationNs) {
    public static final String TASK = "task";
    public static final String IRQ = "irq";
    public static final String SOFTIRQ = "softirq";

    /** An interrupt's handler thread, as PREEMPT_RT (or threadirqs) names it: irq/NUMBER-HANDLER. */
    private static final java.util.regex.Pattern IRQ_THREAD = java.util.regex.Pattern.compile("irq/(\\d+)-(.+)");

    /** True for an interrupt handler or a softirq. */
    public boolean isInterrupt() {
        return !TASK.equals(kind);
    }

    /**
     * The culprit as a person reads it, without its time: {@code disturber (pid 4242,
     * SCHED_FIFO 99)}, {@code IRQ 14 ata_piix}, {@code softirq NET_RX}. A thread whose id
     * is not its process id names both. An interrupt's handler thread (PREEMPT_RT threads
     * them) names its interrupt first: {@code IRQ 14 ata_piix, thread irq/14-ata_piix (pid 85,
     * SCHED_FIFO 50)}.
     */
    public String who() {
        if (IRQ.equals(kind)) {
            return "IRQ " + id + " " + name;
        }
        if (SOFTIRQ.equals(kind)) {
            return "softirq " + name;
        }
        StringBuilder b = new StringBuilder();
        java.util.regex.Matcher irqThread = IRQ_THREAD.matcher(name);
        if (irqThread.matches()) {
            // PREEMPT_RT runs interrupt handlers in threads (irq/14-ata_piix): the interrupt is the culprit
            b.append("IRQ ").append(irqThread.group(1)).append(' ').append(irqThread.group(2)).append(", thread ");
        }
        b.append(name).append(" (");
        if (pid > 0 && pid != id) {
            b.append("pid ").append(pid).append(", tid ").append(id);
        } else {
            b.append("pid ").append(id);
        }
        if (ownJvm) {
            b.append(", this JVM");
        }
        if (policy.equals("SCHED_OTHER")) {
            b.append(", nice ").append(priority);
        } else if (!policy.isEmpty()) {
            b.append(", ").append(policy).append(' ').append(priority);
        }
        return b.append(')').toString();
    }

    /** {@link #who()} and the time: {@code kworker/1:2 (pid 77, SCHED_OTHER 0) 2 ms}. */
    @Override
    public String toString() {
        return who() + " " + duration(durationNs);
    }

    /** A duration in us below 10 ms, in ms above, as the spike lines print it. */
    public static String duration(long ns) {
        if (ns >= 10_000_000) {
            return String.format(Locale.ROOT, "%d ms", Math.round(ns / 1e6));
        }
        return String.format(Locale.ROOT, "%d us", Math.round(ns / 1e3));
    }
}
