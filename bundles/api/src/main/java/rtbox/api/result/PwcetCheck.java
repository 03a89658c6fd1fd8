package rtbox.api.result;

/**
 * One applicability check of a pWCET estimate: {@code name} ("blocks", "independence",
 * "identical distribution", "tail causes", "fit"), its statistic and p-value where it has
 * them (null otherwise: JSON has no NaN), whether it held, and what it found in words.
 *
 * @since 1.6
 */
public record PwcetCheck(String name, Double statistic, Double pValue, boolean passed, String detail) {
}
