/**
 * Shared measuring parts for probes: the latency recorder that every probe's
 * measuring loop writes into (preallocated, lock-free, allocation-free), and the
 * runner service that runs a probe with its JVM hiccup monitor, system
 * information and verdict; and the run request's schema ({@link rtbox.core.RunSchema}), which
 * every front end that describes a run reads with.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package rtbox.core;
