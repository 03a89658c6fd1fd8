package rtbox.policy.sched.internal;

/**
 * Where emulated SCHED_ISO sits among the real-time priorities. SCHED_ISO runs above
 * every normal task and below every privileged real-time task; on a mainline kernel the
 * nearest thing is the bottom of SCHED_RR/FIFO's 1 to 99:
 *
 * <pre>
 *   1 ..  9   the ISO band: emulated ISO tasks (the -ck patch gives ISO one level;
 *             iso_priority picks which, default 1)
 *  10         the ISO supervisor: above every ISO task, or a spinning ISO task would
 *             keep it from demoting that task on its CPU
 *  11 .. 99   rtbox's measuring threads and privileged RT work (fifo/rr runs;
 *             the tuner's fallback_priority, 50, and cyclictest-like 80 or 99)
 * </pre>
 */
final class IsoBand {
    static final int LOW = 1;
    static final int HIGH = 9;
    static final int SUPERVISOR = 10;
    static final int MEASURING_LOW = 11;

    private IsoBand() {
    }

    /** The RR/FIFO priority of an ISO task at the band's level {@code isoPriority} (1 to 9). */
    static int rtPriority(int isoPriority) {
        if (isoPriority < LOW || isoPriority > HIGH) {
            throw new IllegalArgumentException("iso_priority " + isoPriority + " is outside the ISO band: use "
                    + LOW + " to " + HIGH + " (" + SUPERVISOR + " is the supervisor's, " + MEASURING_LOW
                    + " and up rtbox's measuring threads')");
        }
        return isoPriority;
    }
}
