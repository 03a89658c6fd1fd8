package rtbox.control.internal;

import com.google.gson.JsonObject;

/**
 * One message from an appliance, decoded and checked: what the topic says it is, and its
 * JSON. {@code run} and {@code sequence} are set for progress, cell and result;
 * {@code requestId} for a reply.
 */
record Inbound(Kind kind, String appliance, String run, int sequence, String requestId, JsonObject json,
        byte[] raw) {
    enum Kind {
        STATUS, PROGRESS, CELL, RESULT, REPLY;

        String type() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    String string(String field) {
        return Json.string(json, field);
    }
}
