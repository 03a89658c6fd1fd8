package rtbox.mqtt.protocol;

/**
 * One message of rtbox's protocol, as {@link Codec} writes and reads it. Which kind it is
 * follows from the record: {@link Status}, {@link Reply} and {@link Command}, or one of a
 * run's messages ({@link RunMessage}: {@link Progress}, {@link Cell}, {@link Result}).
 */
public sealed interface Message permits Status, Reply, Command, RunMessage {
    /** The appliance that sent it (or, for a command, that it is for). */
    String appliance();
}
