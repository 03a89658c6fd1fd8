package rtbox.workload.blockio.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Defaults for the block-read stressor (PID rtbox.workload.blockio); a run's parameters override them. */
@ObjectClassDefinition(name = "rtbox block-read stressor", description = "Sequential O_DIRECT reads, read-only (seed 002).")
@interface BlockIoConfig {
    @AttributeDefinition(description = "block device or file to read (never written)")
    String path() default "";

    @AttributeDefinition(description = "bytes per read: 512 to 1M, a multiple of 512")
    String bs() default "64k";

    @AttributeDefinition(description = "rate limit in MB/s (10^6 bytes); 0: as fast as the disk goes")
    String rate() default "0";

    @AttributeDefinition(description = "start again at the beginning at the end (false: stop there)")
    boolean wrap() default true;

    @AttributeDefinition(description = "reads to do; 0: until stopped")
    long count() default 0;

    @AttributeDefinition(description = "policy of the reading thread")
    String policy() default "";

    @AttributeDefinition(description = "static priority for fifo and rr")
    int priority() default 0;

    @AttributeDefinition(description = "nice value")
    int nice() default 0;

    @AttributeDefinition(description = "CPUs for the reading thread")
    String cpu() default "";
}
