package rtbox.api.result;

/**
 * A fitted extreme value distribution of the block maxima (maximum likelihood), in ns:
 * location, scale and shape (0 for Gumbel) with the shape's 95 % confidence interval (from
 * the observed information; 0, 0 for Gumbel), and the maximised log-likelihood.
 *
 * @since 1.6
 */
public record PwcetFit(double location, double scale, double shape, double shapeLow, double shapeHigh,
        double logLikelihood) {
}
