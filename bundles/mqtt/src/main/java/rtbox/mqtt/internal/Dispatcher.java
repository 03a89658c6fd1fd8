package rtbox.mqtt.internal;

import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import rtbox.api.RtboxException;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Command;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Topics;

/**
 * The command envelope: decodes a command with the shared {@link Codec}, answers a
 * repeated request id with its first reply (kept in {@link Requests}, on disk), refuses an
 * expired command, records the request before it runs, hands the verb to its
 * {@link Verbs} family and queues the reply. Only the {@code rtbox-mqtt-cmd} thread calls it.
 */
final class Dispatcher {
    /** Every verb of the protocol (docs/mqtt.md), to tell "no such verb" from "not installed here". */
    private static final java.util.List<String> KNOWN = java.util.List.of("run", "plan", "results", "stop", "status",
            "readiness", "selftest", "bundles", "install", "update", "uninstall", "get-config", "set-config", "firmware");

    /** Longest reply message: a value echoed from a command (a 1 MiB probe name) is cut to fit. */
    static final int MAX_MESSAGE = 1000;
    /** Longest verb (the last topic level) written into a reply, the log or requests.log. */
    static final int MAX_VERB = 64;
    /** The request id of a command that is not read whole: the envelope's first member, as senders put it. */
    private static final java.util.regex.Pattern REQUEST_ID = java.util.regex.Pattern.compile(
            "\"requestId\"\\s*:\\s*\"([A-Za-z0-9._-]{1,64})\"");

    private final Station station;
    private final Requests requests;
    private final Map<String, Verbs> verbs = new ConcurrentHashMap<>();

    Dispatcher(Station station, Requests requests) {
        this.station = station;
        this.requests = requests;
    }

    void add(Verbs family) {
        for (String v : family.verbs()) {
            verbs.put(v, family);
        }
    }

    void remove(Verbs family) {
        verbs.values().removeIf(f -> f == family);
    }

    /** The verbs answered now, sorted. */
    TreeSet<String> verbs() {
        return new TreeSet<>(verbs.keySet());
    }

    /** {@code s} whole when it is at most {@code max} characters, else its start and how much was left off. */
    static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        String tail = "... (" + s.length() + " characters, cut)";
        return s.substring(0, Math.max(0, max - tail.length())) + tail;
    }

    private static String verbOf(String topic) {
        return cut(topic.substring(topic.lastIndexOf('/') + 1), MAX_VERB);
    }

    /**
     * A command larger than {@code limit} bytes, of which only {@code head} was kept: answered
     * 413 without being read, on its request id when the head holds it (else on
     * {@code reply/none}), and never executed.
     */
    void oversized(String topic, int size, int limit, byte[] head, boolean retained) {
        String verb = verbOf(topic);
        if (retained) {
            Appliance.LOG.warn("ignored a retained command of {} bytes on {}: commands must not be retained", size,
                    cut(topic, 200));
            return;
        }
        java.util.regex.Matcher m = REQUEST_ID.matcher(new String(head, java.nio.charset.StandardCharsets.ISO_8859_1));
        String requestId = m.find() ? m.group(1) : null;
        byte[] earlier = requestId == null ? null : requests.reply(requestId);
        if (earlier != null) {
            station.queue(Topics.reply(station.appliance(), requestId), earlier);
            return;
        }
        reply(requestId, verb, Reply.tooLarge("the command is " + size + " bytes; this appliance reads at most "
                + limit + " (maxCommandBytes of rtbox.mqtt): not read, not run"
                + ("install".equals(verb) || "update".equals(verb) ? "; give a large bundle by url instead of data" : "")));
    }

    void command(String topic, byte[] payload, boolean retained) {
        String verb = verbOf(topic);
        if (retained) {
            Appliance.LOG.warn("ignored a retained command on {}: commands must not be retained (clear it with an "
                    + "empty retained message)",
                    cut(topic, 200));
            return;
        }
        Command command = null;
        ProtocolException bad = null;
        try {
            command = Codec.decodeCommand(topic, payload);
        } catch (ProtocolException e) {
            bad = e;
        }
        String requestId = command != null ? command.requestId() : bad.requestId();
        if (requestId == null) {
            reply(null, verb, Reply.bad(bad.getMessage()));
            return;
        }
        byte[] earlier = requests.reply(requestId);
        if (earlier != null) {
            // A repeat (the broker delivered it twice, or the sender tried again): answer, do not execute.
            station.queue(Topics.reply(station.appliance(), requestId), earlier);
            return;
        }
        Reply r;
        try {
            r = bad != null ? Reply.bad(bad.getMessage()) : expired(command);
            if (r == null) {
                try {
                    requests.begin(requestId, verb);
                } catch (IOException e) {
                    // Without the record a repeat after a crash could run it twice: do not run it at all.
                    r = Reply.failed("cannot record request " + requestId + " in " + requests.file() + " ("
                            + e.getMessage() + "): not run, since a repeat could not be recognised");
                }
            }
            if (r == null) {
                r = execute(verb, command, requestId);
            }
        } catch (RtboxException e) {
            r = Reply.bad(named(e));
        } catch (RuntimeException e) {
            // The exception's text is the appliance's log's, never the reply's (no class or library text).
            Appliance.LOG.warn("{} {} failed", verb, requestId, e);
            r = Reply.failed(verb + " failed on the appliance (its log says why)");
        }
        if (r != Reply.LATER) {
            reply(requestId, verb, r);
        }
        Runnable after = station.takeAfterReply();
        if (after != null) {
            after.run();
        }
    }

    /** The message, led by the field it is about when it does not name it ("CPU 99 does not exist"). */
    static String named(RtboxException e) {
        String m = String.valueOf(e.getMessage());
        String field = e.subject();
        return field == null || field.isBlank() || m.contains(field) ? m : field + ": " + m;
    }

    private Reply execute(String verb, Command command, String requestId) throws RtboxException {
        Verbs family = verbs.get(verb);
        if (family != null) {
            return family.execute(verb, command.body(), requestId, station);
        }
        if (KNOWN.contains(verb)) {
            return Reply.notFound("verb '" + verb + "' is not available on " + station.appliance() + ": the component"
                    + " that answers it is not active (the plan verbs need the bundle rtbox.plan); this appliance"
                    + " answers " + String.join(", ", verbs()));
        }
        return Reply.notFound("unknown verb '" + verb + "': known are " + String.join(", ", KNOWN));
    }

    /** Null while the command may still run, else the error reply. */
    private static Reply expired(Command c) {
        Instant now = Instant.now();
        if (c.expiredAt(now)) {
            return Reply.bad("the command expired at " + c.expires() + " (the appliance's clock says " + now
                    + "): not run");
        }
        return null;
    }

    /**
     * Commands the appliance was executing when it died have no reply: their outcome is
     * unknown, so each is answered (now, and to any repeat) with 500 saying so, and
     * never executed again; except {@code answeredLater}, a set-config on trial, which the
     * trial answers.
     */
    void answerInterruptedCommands(String answeredLater) {
        requests.interrupted().forEach((id, verb) -> {
            if (!id.equals(answeredLater)) {
                answerInterrupted(id, verb);
            }
        });
    }

    /** Answers {@code requestId} now (a command whose verb answers later: {@link Reply#LATER}). */
    void answer(String requestId, String verb, Reply r) {
        reply(requestId, verb, r);
    }

    private void answerInterrupted(String id, String verb) {
        reply(id, verb, Reply.failed("the appliance restarted while it"
                + " executed this " + verb + " command (crash or power loss): whether it took effect is unknown; check"
                + " (status, bundles, get-config, results) and send it again with a new requestId if needed"));
    }

    private void reply(String requestId, String verb, Reply r) {
        String message = cut(r.message(), MAX_MESSAGE);
        byte[] bytes = Codec.encode(new rtbox.mqtt.protocol.Reply(station.appliance(), Instant.now(), requestId, verb,
                r.code(), message, r.body()));
        if (r.code() != 200) {
            Appliance.LOG.warn("{} {}{}: {}", verb, (requestId == null ? "" : requestId + " "), r.code(), message);
        }
        if (requestId != null) {
            try {
                requests.answer(requestId, bytes);
            } catch (IOException e) {
                Appliance.LOG.warn("cannot record the reply to {} in {}: {}; a repeat after a restart would not be "
                        + "recognised",
                        requestId, requests.file(), e.getMessage());
            }
        }
        station.queue(Topics.reply(station.appliance(), requestId), bytes);
    }
}
