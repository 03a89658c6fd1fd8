/**
 * The result model every probe writes and every report reads: histograms with
 * summary figures, spikes with their likely cause, JVM stalls, system information
 * and the verdict, and (1.6) a probabilistic worst case by extreme value theory ({@link
 * rtbox.api.result.Pwcet}) from the block maxima every thread carries. Plain immutable
 * records, so they serialise to JSON as they are.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.6.0")
package rtbox.api.result;
