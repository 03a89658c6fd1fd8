package rtbox.workload.pipe.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Defaults for the pipe workload (Config Admin PID rtbox.workload.pipe); a run's parameters override them. */
@ObjectClassDefinition(name = "rtbox pipe switcher", description = "One byte passed through a pipe (seed 001).")
@interface PipeConfig {
    @AttributeDefinition(description = "oneway (N writes, N reads) or rtt (round trips)")
    String mode() default "oneway";

    @AttributeDefinition(description = "threads or processes (the second end is a child process)")
    String ends() default "threads";

    @AttributeDefinition(description = "messages (round trips in rtt mode); 0: until stopped")
    long count() default 0;

    @AttributeDefinition(description = "the ends: code (a machine-code loop of system calls, as fast as C; one-way with processes "
            + "forks it as seed 001 does) or jna "
            + "(a JNA call per read and write, about a quarter slower)")
    String loop() default "code";

    @AttributeDefinition(description = "policy of both ends: other, fifo, rr, batch, idle")
    String policy() default "";

    @AttributeDefinition(description = "static priority for fifo and rr")
    int priority() default 0;

    @AttributeDefinition(description = "nice value for other, batch, idle")
    int nice() default 0;

    @AttributeDefinition(description = "CPUs for both ends, e.g. 1 or 0-1 (empty: any)")
    String cpu() default "";
}
