package rtbox.mqtt.protocol;

/** One line per cell that ran, in a plan's result; {@code maxUs}, {@code missedDeadlines}, {@code overflows} -1 when it did not measure. */
public record CellLine(int cell, String name, long sequence, Outcome verdict, long maxUs, long missedDeadlines,
        long overflows) {
}
