package rtbox.regression;

/**
 * The figures of a cell that a comparison looks at. Each is "higher is worse": a larger B than
 * A is a regression. Latencies are in microseconds, taken from the cell's worst thread (the
 * figure a cell's verdict is judged on); counts are summed over the threads.
 */
public enum Figure {
    P50("p50", "us"),
    P99("p99", "us"),
    P999("p99.9", "us"),
    MAX("max", "us"),
    MISSED_DEADLINES("missed deadlines", ""),
    /** Only where the probe counts them (the graph probe). */
    XRUNS("xruns", "");

    private final String label;
    private final String unit;

    Figure(String label, String unit) {
        this.label = label;
        this.unit = unit;
    }

    /** The name a person reads: {@code p99.9}, {@code missed deadlines}. */
    public String label() {
        return label;
    }

    /** {@code us}, or empty for a count. */
    public String unit() {
        return unit;
    }
}
