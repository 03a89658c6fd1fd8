package rtbox.plan;

import rtbox.api.RtboxException;

/**
 * A plan cannot start because another one is running (one measurement at a time): a
 * caller answers "not now" (MQTT 409) on this type, never on the message's words.
 *
 * @since 1.3
 */
public class PlanBusyException extends RtboxException {
    private static final long serialVersionUID = 1L;

    public PlanBusyException(String message) {
        super("plan", message);
    }
}
