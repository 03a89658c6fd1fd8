package rtbox.core.toolkit;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Implemented by a workload handle that knows when it was busy (a block read in
 * flight, a disturber spinning), so that the runner can label a spike "workload"
 * when it falls in such a window. Read once, after the run, before the handle is
 * stopped.
 */
@ConsumerType
public interface BusyWindows {
    /**
     * The busy windows so far as CLOCK_MONOTONIC (System.nanoTime) pairs:
     * {@code [start0, end0, start1, end1, ...]}. The newest windows when there were
     * more than the workload keeps.
     */
    long[] busyWindows();
}
