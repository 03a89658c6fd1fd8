package rtbox.control.internal;

import org.osgi.service.component.annotations.Component;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why the control room's last start failed, for {@code rtbox control} to print: a service
 * that both components reference, in place of a static field that outlived the bundle's
 * class loader and was shared by every instance. Lives as long as the bundle, since the
 * ControlRoom component that fails is discarded by SCR when its activate throws.
 */
@Component(service = StartFailure.class)
public class StartFailure {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control");
    private volatile String reason;

    /** A step of a control-room component's start that may fail. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws Exception;
    }

    /** Runs {@code step}; its failure becomes the start's (logged, kept for rtbox control) and is thrown on. */
    <T> T attempt(Step<T> step) throws Exception {
        try {
            return step.run();
        } catch (Exception e) {
            String why = Db.rootMessage(e);
            set(why);
            LOG.warn("cannot start: {}", why);
            throw e;
        }
    }

    /** Null when the last start did not fail (or none has been tried). */
    String reason() {
        return reason;
    }

    void set(String why) {
        reason = why;
    }
}
