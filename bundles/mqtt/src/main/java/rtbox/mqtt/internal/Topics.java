package rtbox.mqtt.internal;

import java.util.regex.Pattern;

/**
 * The topic trees: everything the appliance sends is under {@code rtbox/v1/up/ID},
 * everything it obeys under {@code rtbox/v1/down/ID}, so that a broker ACL can give
 * each side one tree.
 */
final class Topics {
    static final String ROOT = "rtbox/v1";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private Topics() {
    }

    /** Null when {@code id} can be an appliance id, request id or run id; else why not. */
    static String checkId(String what, String id) {
        if (id == null || id.isEmpty()) {
            return what + " is missing";
        }
        if (!ID.matcher(id).matches()) {
            return what + " '" + id + "' may hold only letters, digits, '.', '_' and '-' (at most 64)";
        }
        return null;
    }

    static String up(String appliance) {
        return ROOT + "/up/" + appliance;
    }

    static String status(String appliance) {
        return up(appliance) + "/status";
    }

    static String progress(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/progress";
    }

    static String result(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/result";
    }

    /** One cell's result of a plan run. */
    static String cell(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/cell";
    }

    static String reply(String appliance, String requestId) {
        return up(appliance) + "/reply/" + requestId;
    }

    static String commands(String appliance) {
        return ROOT + "/down/" + appliance + "/cmd/+";
    }

    static String cmd(String appliance, String verb) {
        return ROOT + "/down/" + appliance + "/cmd/" + verb;
    }

    /** The verb of a command topic, or null if the topic is not one of this appliance's. */
    static String verb(String appliance, String topic) {
        String prefix = ROOT + "/down/" + appliance + "/cmd/";
        return topic.startsWith(prefix) && topic.length() > prefix.length() ? topic.substring(prefix.length()) : null;
    }
}
