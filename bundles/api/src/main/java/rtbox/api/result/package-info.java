/**
 * The result model every probe writes and every report reads: histograms with
 * summary figures, spikes with their likely cause, JVM stalls, system information
 * and the verdict. Plain immutable records, so they serialise to JSON as they are.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package rtbox.api.result;
