package rtbox.mqtt.protocol;

import java.util.regex.Pattern;

/**
 * The topic trees: everything an appliance sends is under {@code rtbox/v1/up/ID}, everything
 * it obeys under {@code rtbox/v1/down/ID}, so that a broker ACL can give each side one tree
 * (docs/mqtt.md, docs/mosquitto.acl). The root and the id pattern exist here only.
 */
public final class Topics {
    /** Every topic starts with this; {@code v1} changes only with an incompatible protocol. */
    public static final String ROOT = "rtbox/v1";
    /**
     * Appliance ids, request ids and run ids: letters, digits, '.', '_', '-', at most 64 (no MQTT
     * wildcard, no '/'), and not dots alone: {@code .} and {@code ..} are path steps in the
     * control room's URLs ({@code /api/v1/runs/a1/..}) and in file names (a run {@code ..} was
     * stored, issue 31).
     */
    public static final Pattern ID = Pattern.compile("(?!\\.+$)[A-Za-z0-9._-]{1,64}");
    /** The reply topic's last level for a command whose request id could not be read. */
    public static final String NO_REQUEST_ID = "none";
    /** A subscription to every appliance's status. */
    public static final String ALL_STATUS = ROOT + "/up/+/status";
    /**
     * The control room's broadcast to every appliance (since 1.3): each answers by publishing
     * its status again. A control room sends it when it (re)connects, so that it learns the
     * fleet without a retained status, which a clustered broker may keep on one node only
     * (docs/fleet.md). Not a command: no reply, no request id; the payload is not read.
     */
    public static final String ANNOUNCE = ROOT + "/down/all/announce";

    private Topics() {
    }

    /** Null when {@code id} can be an appliance id, request id or run id; else why not, naming {@code what}. */
    public static String checkId(String what, String id) {
        if (id == null || id.isEmpty()) {
            return what + " is missing";
        }
        if (!ID.matcher(id).matches()) {
            // Shown cut: a 1 MiB id must not be copied into a reply or a log line.
            String shown = id.length() <= 70 ? id : id.substring(0, 40) + "... (" + id.length() + " characters)";
            return what + " '" + shown + "' may hold only letters, digits, '.', '_' and '-' (at most 64), not"
                    + " dots alone";
        }
        return null;
    }

    /** {@code id} when it is a valid id, else a {@link ProtocolException} on {@code field}. */
    public static String requireId(String field, String id) throws ProtocolException {
        String bad = checkId(field, id);
        if (bad != null) {
            throw new ProtocolException(field, bad.startsWith(field + " ") ? bad.substring(field.length() + 1) : bad);
        }
        return id;
    }

    /** The appliance's own tree, {@code rtbox/v1/up/ID}. */
    public static String up(String appliance) {
        return ROOT + "/up/" + appliance;
    }

    public static String status(String appliance) {
        return up(appliance) + "/status";
    }

    /** The live figures of the run under way (QoS 0, not retained; since 1.5). */
    public static String live(String appliance) {
        return up(appliance) + "/live";
    }

    /** Every appliance's live figures, for a control room. */
    public static final String ALL_LIVE = ROOT + "/up/+/live";

    public static String progress(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/progress";
    }

    /** One cell's result of a plan run. */
    public static String cell(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/cell";
    }

    public static String result(String appliance, String run) {
        return up(appliance) + "/runs/" + run + "/result";
    }

    /** {@code requestId} null: the reply to a command without a usable request id ({@code reply/none}). */
    public static String reply(String appliance, String requestId) {
        return up(appliance) + "/reply/" + (requestId == null ? NO_REQUEST_ID : requestId);
    }

    /** A subscription to every reply of {@code appliance}. */
    public static String replies(String appliance) {
        return up(appliance) + "/reply/+";
    }

    /** A subscription to every message of every run of {@code appliance}. */
    public static String runs(String appliance) {
        return up(appliance) + "/runs/+/+";
    }

    /** The appliance's subscription to its commands. */
    public static String commands(String appliance) {
        return ROOT + "/down/" + appliance + "/cmd/+";
    }

    public static String command(String appliance, String verb) {
        return ROOT + "/down/" + appliance + "/cmd/" + verb;
    }

    /** The topic a message goes to. */
    public static String of(Message m) {
        if (m instanceof Status) {
            return status(m.appliance());
        }
        if (m instanceof Progress) {
            return progress(m.appliance(), ((Progress) m).run());
        }
        if (m instanceof Cell) {
            return cell(m.appliance(), ((Cell) m).run());
        }
        if (m instanceof Result) {
            return result(m.appliance(), ((Result) m).run());
        }
        if (m instanceof Reply) {
            return reply(m.appliance(), ((Reply) m).requestId());
        }
        Command c = (Command) m;
        return command(c.appliance(), c.verb());
    }

    /**
     * Takes a topic of rtbox's trees apart; a {@link ProtocolException} on {@code topic} says
     * what does not fit (another root, an unknown level, a bad id).
     */
    public static Topic parse(String topic) throws ProtocolException {
        if (topic == null || !topic.startsWith(ROOT + "/")) {
            throw new ProtocolException("topic", "'" + topic + "' is not under " + ROOT + "/");
        }
        String[] l = topic.substring(ROOT.length() + 1).split("/", -1);
        if (l.length < 3) {
            throw new ProtocolException("topic", "'" + topic + "' is too short: expected " + ROOT
                    + "/up/ID/... or " + ROOT + "/down/ID/cmd/VERB");
        }
        String appliance = id(topic, "appliance id", l[1]);
        if ("down".equals(l[0])) {
            if (l.length == 4 && "cmd".equals(l[2]) && !l[3].isEmpty()) {
                return new Topic(Topic.Kind.COMMAND, appliance, null, null, l[3]);
            }
        } else if ("up".equals(l[0])) {
            if (l.length == 3 && "status".equals(l[2])) {
                return new Topic(Topic.Kind.STATUS, appliance, null, null, null);
            }
            if (l.length == 3 && "live".equals(l[2])) {
                return new Topic(Topic.Kind.LIVE, appliance, null, null, null);
            }
            if (l.length == 4 && "reply".equals(l[2])) {
                return new Topic(Topic.Kind.REPLY, appliance, null, id(topic, "request id", l[3]), null);
            }
            if (l.length == 5 && "runs".equals(l[2])) {
                String run = id(topic, "run id", l[3]);
                switch (l[4]) {
                    case "progress": return new Topic(Topic.Kind.PROGRESS, appliance, run, null, null);
                    case "cell": return new Topic(Topic.Kind.CELL, appliance, run, null, null);
                    case "result": return new Topic(Topic.Kind.RESULT, appliance, run, null, null);
                    default: break;
                }
            }
        }
        throw new ProtocolException("topic", "'" + topic + "' is not one of rtbox's topics: up/ID/status, up/ID/live,"
                + " up/ID/runs/RUN/progress|cell|result, up/ID/reply/REQUESTID, down/ID/cmd/VERB");
    }

    private static String id(String topic, String what, String id) throws ProtocolException {
        String bad = checkId(what, id);
        if (bad != null) {
            throw new ProtocolException("topic", "'" + topic + "': " + bad);
        }
        return id;
    }
}
