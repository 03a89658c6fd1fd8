/**
 * The kernel's own trace of a run: a {@link rtbox.trace.KernelTrace} starts a
 * {@link rtbox.trace.TraceSession} on the probe's CPUs (a private tracefs instance
 * with the scheduler and interrupt events), and the session names what held a CPU in
 * a window of time ({@link rtbox.api.result.Culprit}s, largest first).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package rtbox.trace;
