package rtbox.broker.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.regex.Pattern;

import io.moquette.broker.security.IAuthenticator;
import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.broker.subscriptions.Topic;

/**
 * Who may connect and what each may do, as docs/mosquitto.acl says for a site broker:
 * every user needs the password; the user {@code control} reads every appliance's
 * {@code up} tree and writes every {@code down} tree; any other user is an appliance
 * whose id is its user name (and its client id: no other), and writes only its own
 * {@code up} tree and reads only its own {@code down} tree and the control room's
 * broadcast {@code rtbox/v1/down/all/announce}.
 */
final class Access implements IAuthenticator, IAuthorizatorPolicy {
    static final String CONTROL = "control";
    private static final String ROOT = "rtbox/v1/";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private final byte[] password;

    Access(String password) {
        this.password = password.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean checkValid(String clientId, String username, byte[] password) {
        // Constant time: the comparison does not tell how much of a guess was right.
        return username != null && ID.matcher(username).matches() && password != null
                && MessageDigest.isEqual(this.password, password) && ownClientId(clientId, username);
    }

    /**
     * An appliance connects with {@code rtbox-} and its user name as its client id (what it
     * sends; a site mosquitto replaces it by the user name), or the bare user name, and with no
     * other: a second user connecting with appliance a1's client id would take a1's session and
     * cut it off (a takeover, issue 17 case 6), as the site broker's listener for appliances
     * prevents with use_username_as_clientid (docs/mosquitto.conf). The control room picks its
     * own (this broker has one password for every user: it serves one machine, 127.0.0.1).
     */
    static boolean ownClientId(String clientId, String username) {
        return CONTROL.equals(username) || username.equals(clientId) || ("rtbox-" + username).equals(clientId);
    }

    @Override
    public boolean canWrite(Topic topic, String user, String client) {
        return user != null && within(topic.toString(), ROOT + (CONTROL.equals(user) ? "down/" : "up/" + user + "/"));
    }

    @Override
    public boolean canRead(Topic topic, String user, String client) {
        if (user != null && !CONTROL.equals(user) && rtbox.mqtt.protocol.Topics.ANNOUNCE.equals(topic.toString())) {
            return true;
        }
        return user != null && within(topic.toString(), ROOT + (CONTROL.equals(user) ? "up/" : "down/" + user + "/"));
    }

    /**
     * True when the topic (or subscription filter) lies under {@code prefix}: the prefix
     * must be spelled out, a wildcard standing for part of it would reach other trees.
     */
    static boolean within(String topic, String prefix) {
        return topic.startsWith(prefix) && topic.length() > prefix.length();
    }
}
