package rtbox.plan.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the plan service (PID rtbox.plan). */
@ObjectClassDefinition(name = "rtbox plans", description = "Acceptance test plans and the result journal.")
@interface PlanConfig {
    @AttributeDefinition(description = "the result journal; empty: <rtbox.home>/data/results.journal")
    String journal() default "";
}
