package rtbox.workload.fairness.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Defaults for the fairness load (PID rtbox.workload.fairness); a run's parameters override them. */
@ObjectClassDefinition(name = "rtbox CPU fairness load", description = "N workers: work W ms, sleep S ms (seed 003).")
@interface FairnessConfig {
    @AttributeDefinition(description = "number of workers")
    int workers() default 4;

    @AttributeDefinition(description = "work per round, e.g. 8ms")
    String work() default "8ms";

    @AttributeDefinition(description = "sleep per round, e.g. 1ms")
    String sleep() default "1ms";

    @AttributeDefinition(description = "add a SCHED_FIFO disturber whose work grows each round")
    boolean disturber() default false;

    @AttributeDefinition(description = "the disturber's FIFO priority")
    int disturber_priority() default 1;

    @AttributeDefinition(description = "the disturber's longest work and sleep, e.g. 50ms")
    String disturber_max() default "50ms";

    @AttributeDefinition(description = "policy of the workers")
    String policy() default "";

    @AttributeDefinition(description = "static priority of the workers for fifo and rr")
    int priority() default 0;

    @AttributeDefinition(description = "nice value of the workers")
    int nice() default 0;

    @AttributeDefinition(description = "CPUs of the workers and the disturber")
    String cpu() default "";
}
