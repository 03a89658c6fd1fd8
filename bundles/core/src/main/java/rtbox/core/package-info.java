/**
 * Shared measuring parts for probes: the latency recorder that every probe's
 * measuring loop writes into (preallocated, lock-free, allocation-free), and the
 * runner service that runs a probe with its JVM hiccup monitor, system
 * information and verdict.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package rtbox.core;
