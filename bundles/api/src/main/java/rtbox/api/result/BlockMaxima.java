package rtbox.api.result;

/**
 * The largest sample of each block of {@code blockSamples} consecutive samples of one
 * measuring thread, in time order, with the time each was taken ({@code offsetNs}, from the
 * start of measuring, the spikes' time line): what extreme value theory is fitted to
 * ({@link Pwcet}). A last block that was not full is left out.
 *
 * @since 1.6
 */
public record BlockMaxima(long blockSamples, long[] maxNs, long[] offsetNs) {
}
