package rtbox.policy.sched.internal;

/**
 * SCHED_ISO's rule (seed 004's -ck patch, later BFS/MuQSS) as arithmetic, without a
 * clock or a syscall, so that it can be checked against a hand-computed series.
 *
 * <p>The ISO class's share is a decaying average of its CPU use: at every tick the share
 * moves towards the fraction used by tick / iso_period ({@code share += (used - share) *
 * tick / period}), the kernel's {@code iso_ticks -= iso_ticks / ISO_PERIOD; iso_ticks +=
 * 100 per ISO tick}: an exponential average with a time constant of iso_period. A sample
 * that stands for k ticks (a late one, or one after the supervisor's quiet stride) moves
 * the share as k such ticks at its mean use would: by {@code 1 - (1 - tick / period)^k},
 * not k x tick / period, which would run ahead of the ticks and demote before the share
 * has crossed (by about 60 ms at a 100 ms stride and a 1 s iso_period, measured by
 * bench/iso-reaction). When the share
 * exceeds iso_cpu every ISO task is demoted to SCHED_OTHER; when it falls under 90 % of
 * iso_cpu (the kernel's {@code iso_cpu * 115 / 128}) they are promoted back. At
 * iso_cpu 100 they are never demoted.
 *
 * <p>"Used" counts the ISO threads' CPU time whatever policy they run at, demoted or
 * not (the kernel's schedstat does). BFS counts only ticks run as ISO, so a demoted
 * spinner lets the share fall in about a tenth of iso_period and is back at ISO most of
 * the time (about 83 % of a CPU against a normal spinner at iso_cpu 70); counting all
 * of the ISO threads' time holds their share between 90 % of iso_cpu and iso_cpu, which
 * is what the limit promises (README).
 *
 * <p>Not thread-safe; allocates nothing.
 */
final class IsoRule {
    /** What one sample did. */
    enum Change { NONE, DEMOTE, PROMOTE }

    private final double limit;
    private final double promoteBelow;
    private final long periodNs;
    private final long tickNs;
    /** What one tick keeps of the share: 1 - tick / iso_period. */
    private final double keptPerTick;
    private double share;
    private boolean demoted;

    /**
     * @param isoCpu iso_cpu, 0 to 100 (%)
     * @param periodNs iso_period in ns (the kernel's default: 5 s)
     * @param tickNs the sampling tick in ns (4-10 ms)
     */
    IsoRule(int isoCpu, long periodNs, long tickNs) {
        if (isoCpu < 0 || isoCpu > 100) {
            throw new IllegalArgumentException("iso_cpu " + isoCpu + " is out of range: use 0 to 100");
        }
        if (periodNs <= 0) {
            throw new IllegalArgumentException("iso_period must be positive, not " + periodNs + " ns");
        }
        if (tickNs <= 0) {
            throw new IllegalArgumentException("the sampling tick must be positive, not " + tickNs + " ns");
        }
        this.limit = isoCpu / 100.0;
        this.promoteBelow = 0.9 * limit;
        this.periodNs = periodNs;
        this.tickNs = tickNs;
        this.keptPerTick = 1.0 - Math.min(1.0, tickNs / (double) periodNs);
    }

    long tickNs() {
        return tickNs;
    }

    /**
     * One sample.
     *
     * @param usedNs CPU time of the ISO threads since the last sample
     * @param elapsedNs wall time since the last sample
     * @param cpus the CPUs the ISO threads may run on (the share is of their capacity)
     */
    Change sample(long usedNs, long elapsedNs, int cpus) {
        if (elapsedNs <= 0) {
            return Change.NONE;
        }
        // Not capped at 1: the kernel adds a running thread's time to its schedstat at ticks and
        // switches, so a sample can see more than its interval and the next one less. Capping
        // would lose the excess and hold the real share above iso_cpu.
        double used = Math.max(0.0, usedNs / ((double) elapsedNs * cpus));
        double weight = 1.0 - Math.pow(keptPerTick, elapsedNs / (double) tickNs);
        share += (used - share) * weight;
        if (!demoted && limit < 1.0 && share > limit) {
            demoted = true;
            return Change.DEMOTE;
        }
        if (demoted && share < promoteBelow) {
            demoted = false;
            return Change.PROMOTE;
        }
        return Change.NONE;
    }

    /** The ISO class's share now, 0 to 1. */
    double share() {
        return share;
    }

    boolean demoted() {
        return demoted;
    }

    /** The most a sample's use is taken to be in {@link #quietTicks}: over 1 by the counts' jitter. */
    static final double MAX_USE = 1.5;

    /**
     * How many ticks from now the next sample may wait without a change coming later than
     * it would with a sample every tick: the ticks over which the share, rising as fast as
     * it can (a use of {@link #MAX_USE}), stays at or under iso_cpu, or, demoted, falling as
     * fast as it can (no use at all), stays at or over the promotion line. At least 1, at
     * most {@code maxTicks}; always {@code maxTicks} at iso_cpu 100.
     *
     * <p>The bounds are the first-order ones: ticked one by one the share moves towards the
     * use by a factor (1 - w) each time, which after k ticks is never farther than k x w of
     * the way (Bernoulli's inequality), so the straight line bounds every tick in between.
     * A sample after k ticks steps as the k ticks would have at their mean use, so a
     * crossing is seen at the stride's end at the latest, and not before the ticks reach it.
     * This is a tickless kernel's reasoning (wake when something can be due), and on the
     * development VM each wake-up costs 25-44 us of CPU, most of the supervisor's cost.
     */
    int quietTicks(int maxTicks) {
        if (limit >= 1.0) {
            return Math.max(1, maxTicks);
        }
        double w = tickNs / (double) periodNs;
        double ticks;
        if (demoted) {
            ticks = share <= promoteBelow ? 0 : (1 - promoteBelow / share) / w;
        } else {
            ticks = share >= limit ? 0 : (limit - share) / ((MAX_USE - share) * w);
        }
        return (int) Math.max(1, Math.min(maxTicks, Math.floor(ticks)));
    }
}
