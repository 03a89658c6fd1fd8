package rtbox.mqtt.protocol;

/**
 * A topic of rtbox's trees, taken apart by {@link Topics#parse(String)}: whose it is, what kind
 * of message it carries, and the run, request id or verb in it (null where the kind has none).
 */
public record Topic(Kind kind, String appliance, String run, String requestId, String verb) {
    /** What a topic carries; all but {@code COMMAND} go up from an appliance, {@code COMMAND} down to it. */
    public enum Kind {
        STATUS, PROGRESS, CELL, RESULT, REPLY, COMMAND,
        /** The live figures of the run under way ({@code up/ID/live}; since 1.5). */
        LIVE;

        /** True for the appliance's own tree ({@code rtbox/v1/up/ID/...}). */
        public boolean up() {
            return this != COMMAND;
        }
    }

    /** The topic as a string again. */
    @Override
    public String toString() {
        switch (kind) {
            case STATUS: return Topics.status(appliance);
            case PROGRESS: return Topics.progress(appliance, run);
            case CELL: return Topics.cell(appliance, run);
            case RESULT: return Topics.result(appliance, run);
            case REPLY: return Topics.reply(appliance, requestId);
            case LIVE: return Topics.live(appliance);
            default: return Topics.command(appliance, verb);
        }
    }
}
