package rtbox.api;

/**
 * The scheduling policy and priority that a run's measuring threads really get from a
 * policy: SCHED_FIFO 80 where SCHED_ISO was asked for on a kernel without it, say. The
 * runner takes it from here, typed, rather than from the text of a change.
 *
 * @param policy the policy the threads run at
 * @param priority the real-time priority, 0 for a policy without one
 */
public record EffectivePolicy(SchedPolicy policy, int priority) {
}
