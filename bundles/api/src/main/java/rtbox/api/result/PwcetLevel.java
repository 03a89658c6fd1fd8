package rtbox.api.result;

/**
 * The latency exceeded with {@code probability} {@code per} "sample", "hour" (of operation at
 * the run's interval) or "block", with its 95 % confidence interval, in ns.
 *
 * @since 1.6
 */
public record PwcetLevel(double probability, String per, double ns, double lowNs, double highNs) {
}
