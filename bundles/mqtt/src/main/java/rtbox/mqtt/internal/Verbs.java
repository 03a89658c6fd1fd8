package rtbox.mqtt.internal;

import java.util.Set;

import com.google.gson.JsonObject;

import rtbox.api.RtboxException;

/**
 * A family of command verbs, registered as a service by its own component and found by
 * the {@link Appliance} on a whiteboard: a verb is added by adding a component, and a
 * family whose bundle is missing (the plan verbs without rtbox.plan) is simply absent.
 * Private to this bundle: the interface is not exported.
 *
 * <p>Every method is called on the {@code rtbox-mqtt-cmd} thread, one command at a time.
 */
interface Verbs {

    /** The verbs this family answers, e.g. {@code run}. */
    Set<String> verbs();

    /**
     * Executes one command. An {@link RtboxException} is a bad command (400 with its
     * message); any other exception a failure here (500).
     */
    Reply execute(String verb, JsonObject body, String requestId, Station station) throws RtboxException;

    /**
     * Called once per serving appliance, when the family is first there: it delivers what a
     * crash or power loss left undelivered of its kind of run ({@link Station#interrupted}).
     */
    default void recover(Station station) {
    }
}
