package rtbox.mqtt.internal;

import com.google.gson.JsonObject;

/**
 * The answer to a command: an HTTP-like code (200 done, 400 bad command, 404 no such
 * thing, 409 not now, 413 too large to read, 500 failed here, 507 no room on its disk), a message a person can act on, and a body.
 */
record Reply(int code, String message, JsonObject body) {
    /**
     * Not an answer yet: the verb answers later itself (a set-config of rtbox.mqtt, answered
     * by the appliance its new settings start, or by the one the old ones start again).
     */
    static final Reply LATER = new Reply(202, "the answer follows", new JsonObject());

    static Reply ok(String message, JsonObject body) {
        return new Reply(200, message, body);
    }

    static Reply ok(String message) {
        return new Reply(200, message, new JsonObject());
    }

    static Reply bad(String message) {
        return new Reply(400, message, new JsonObject());
    }

    static Reply notFound(String message) {
        return new Reply(404, message, new JsonObject());
    }

    static Reply conflict(String message) {
        return new Reply(409, message, new JsonObject());
    }

    static Reply tooLarge(String message) {
        return new Reply(413, message, new JsonObject());
    }

    /** 507: no room on the appliance's disk for what the command would store. */
    static Reply insufficientStorage(String message) {
        return new Reply(507, message, new JsonObject());
    }

    static Reply failed(String message) {
        return new Reply(500, message, new JsonObject());
    }
}
