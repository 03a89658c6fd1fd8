package rtbox.plan.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the plan service (PID rtbox.plan). */
@ObjectClassDefinition(name = "rtbox plans", description = "Acceptance test plans and the result journal.")
@interface PlanConfig {
    @AttributeDefinition(description = "the result journal; empty: <rtbox.home>/data/results.journal")
    String journal() default "";

    @AttributeDefinition(description = "the result journal's bound in bytes: past it, the oldest runs are dropped"
            + " (never the newest, one under way, or one whose result has not yet left); 0: unbounded")
    long journalMaxBytes() default JournalBound.DEFAULT_MAX_BYTES;
}
