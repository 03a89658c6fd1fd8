package rtbox.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One measuring thread's figures while it measures: for a live display (cyclictest's
 * {@code T:} lines refreshed in place) and for printing every sample (cyclictest's
 * {@code -v}). The measuring thread alone writes them, with release stores: no lock, no
 * allocation in its loop. Any other thread may read them at any time; the figures it
 * reads may be a sample apart from each other (the sum of one sample, the count of the
 * next), never torn (a long is read whole, also on a 32-bit JVM).
 *
 * @since 1.2
 */
@ProviderType
public interface LiveThread {
    /** The thread's index in the run (cyclictest's T: number). */
    int thread();

    /** The CPU it runs on. */
    int cpu();

    /** Its Linux thread id; 0 until it runs. */
    int tid();

    /** Samples measured so far; 0 before measuring (during warm-up). */
    long cycles();

    /** Smallest sample so far in ns; 0 without samples. */
    long minNs();

    /** The last sample in ns (cyclictest's Act); 0 without samples. */
    long lastNs();

    /** Largest sample so far in ns. */
    long maxNs();

    /** Sum of the samples so far in ns (the average is {@code sumNs() / cycles()}). */
    long sumNs();

    /**
     * The size of the ring of latest samples for {@link #sampleNs}, which the measuring
     * thread fills and another thread reads ({@link RunParameters#printSamples}); 0 when
     * samples are not kept. The latest {@code samplesKept() - 1} are readable: the slot the
     * measuring thread fills next may be being written.
     */
    int samplesKept();

    /**
     * Sample number {@code cycle} (0 is the first measured) in ns, or -1 when it is not
     * kept: not measured yet, or already overwritten by a later one because the reader
     * fell more than {@link #samplesKept()} samples behind.
     */
    long sampleNs(long cycle);
}
