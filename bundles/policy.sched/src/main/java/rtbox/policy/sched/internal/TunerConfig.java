package rtbox.policy.sched.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the scheduling tuner (PID rtbox.policy.sched). */
@ObjectClassDefinition(name = "rtbox scheduling tuner",
        description = "SCHED_ISO and iso_cpu where the kernel has them; otherwise SCHED_FIFO/RR with RT throttling as the analogue.")
@interface TunerConfig {
    @AttributeDefinition(description = "file recording what a run changed, for restore after a crash; "
            + "empty: <rtbox.home>/data/policy.sched.state")
    String state_file() default "";

    @AttributeDefinition(description = "policy used for 'iso' on a kernel without SCHED_ISO: fifo or rr")
    String fallback_policy() default "fifo";

    @AttributeDefinition(description = "priority of the fallback policy when a run names none (1 to 99)")
    int fallback_priority() default 50;
}
