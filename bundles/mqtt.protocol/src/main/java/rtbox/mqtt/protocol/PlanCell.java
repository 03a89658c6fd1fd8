package rtbox.mqtt.protocol;

/** Which cell of which plan a message is about: {@code cell} counts from 1 to {@code cells}. */
public record PlanCell(String plan, int cell, int cells, String name) {
}
