package rtbox.control.internal;

import org.osgi.service.component.annotations.Component;

/**
 * Why the control room's last start failed, for {@code rtbox control} to print: a service
 * that both components reference, in place of a static field that outlived the bundle's
 * class loader and was shared by every instance. Lives as long as the bundle, since the
 * ControlRoom component that fails is discarded by SCR when its activate throws.
 */
@Component(service = StartFailure.class)
public class StartFailure {
    private volatile String reason;

    /** Null when the last start did not fail (or none has been tried). */
    String reason() {
        return reason;
    }

    void set(String why) {
        reason = why;
    }
}
