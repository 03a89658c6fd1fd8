package rtbox.policy.sched.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the scheduling tuner (PID rtbox.policy.sched). */
@ObjectClassDefinition(name = "rtbox scheduling tuner",
        description = "SCHED_ISO and iso_cpu where the kernel has them; otherwise SCHED_ISO's rule emulated in the ISO band of SCHED_RR/FIFO.")
@interface TunerConfig {
    @AttributeDefinition(description = "file recording what a run changed, for restore after a crash; "
            + "empty: <rtbox.home>/data/policy.sched.state")
    String state_file() default "";

    @AttributeDefinition(description = "policy of emulated SCHED_ISO on a kernel without it: rr (ISO_RR, as SCHED_ISO "
            + "behaves) or fifo (ISO_FIFO)")
    String fallback_policy() default "rr";

    @AttributeDefinition(description = "priority of a fifo or rr run that names none (1 to 99)")
    int fallback_priority() default 50;
}
