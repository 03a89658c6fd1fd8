/**
 * The probe toolkit: what a probe's or workload's own code uses while it measures or
 * loads, apart from the runner and its API in {@link rtbox.core}. The latency recorder
 * every measuring loop writes into (preallocated, lock-free, allocation-free), the
 * parameter reader and checks every probe, workload and policy takes its settings with,
 * and the busy windows a workload reports for attribution. Versioned on its own, so a
 * probe depends on the toolkit's version, not on the runner's. 1.1.0: the recorder keeps block
 * maxima (LatencyRecorder.blockMaxima) for the pWCET estimate.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package rtbox.core.toolkit;
