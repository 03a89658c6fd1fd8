package rtbox.control.internal;

import java.util.function.BooleanSupplier;

/**
 * Which connection of an MQTT session a message came on, for its manual acknowledgement:
 * a packet id of a lost connection may name another message on the next one, so an
 * acknowledgement is sent only on the connection its message came on (the broker delivers
 * the others again). Shared by the control room's two sessions ({@link MqttLink},
 * {@link SharedIngest}); counted when a connection is lost, which comes before the client
 * reconnects.
 */
final class Connections {
    /** Sends one acknowledgement (the client's own call and exception). */
    interface Send {
        void send() throws Exception;
    }

    private long current;

    synchronized void lost() {
        current++;
    }

    synchronized long current() {
        return current;
    }

    /**
     * Acknowledges through {@code send} if the message came on the connection still up;
     * false if it did not (it comes again) or the send failed ({@code why} then holds the
     * exception, for the log).
     */
    synchronized boolean acknowledge(long on, BooleanSupplier connected, Send send, Exception[] why) {
        if (on != current || !connected.getAsBoolean()) {
            return false;
        }
        try {
            send.send();
            return true;
        } catch (Exception e) {
            why[0] = e;
            return false;
        }
    }
}
