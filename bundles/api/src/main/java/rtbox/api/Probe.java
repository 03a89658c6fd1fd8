package rtbox.api;

import org.osgi.annotation.versioning.ConsumerType;

import rtbox.api.result.ProbeResult;

/**
 * Measures one thing about the machine's timing (timer wake-ups, TSC busy-wait
 * overshoot, RTC interrupt arrival) and returns what it saw. Registered as an
 * OSGi service with {@link #NAME} set to the name a user types ({@code timer}).
 */
@ConsumerType
public interface Probe {
    /** Service property: the probe's name, as in {@code rtbox run <name>}. */
    String NAME = "rtbox.probe";

    /**
     * Checks the parameters without touching the machine. Every bad value is named.
     *
     * @throws RtboxException naming the first bad parameter and its value
     */
    void validate(RunParameters parameters) throws RtboxException;

    /**
     * Runs the probe to its end (duration, loop count, or {@link RunContext#stopRequested()}).
     * Returns what was measured even when stopped early; it then says so in its notes.
     */
    ProbeResult run(RunParameters parameters, RunContext context) throws RtboxException;
}
