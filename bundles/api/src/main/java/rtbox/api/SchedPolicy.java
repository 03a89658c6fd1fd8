package rtbox.api;

import java.util.Locale;

/** Linux scheduling policies, with the kernel's numbers. ISO exists only on -ck kernels. */
public enum SchedPolicy {
    OTHER(0, 0, 0), FIFO(1, 1, 99), RR(2, 1, 99), BATCH(3, 0, 0), ISO(4, 0, 0), IDLE(5, 0, 0);

    /** The number sched_setscheduler(2) takes. */
    public final int kernelValue;
    /** The valid static priority range for this policy. */
    public final int minPriority, maxPriority;

    SchedPolicy(int kernelValue, int minPriority, int maxPriority) {
        this.kernelValue = kernelValue;
        this.minPriority = minPriority;
        this.maxPriority = maxPriority;
    }

    /** True for the policies that preempt SCHED_OTHER and are subject to RT throttling. */
    public boolean isRealtime() {
        return this == FIFO || this == RR;
    }

    /** Parses cyclictest's spelling (other, normal, batch, idle, fifo, rr, iso). */
    public static SchedPolicy parse(String name) throws RtboxException {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "other": case "normal": return OTHER;
            case "fifo": return FIFO;
            case "rr": return RR;
            case "batch": return BATCH;
            case "iso": return ISO;
            case "idle": return IDLE;
            default:
                throw new RtboxException("policy", "unknown policy '" + name
                        + "': use other, fifo, rr, batch, idle or iso");
        }
    }

    public static SchedPolicy ofKernelValue(int value) {
        for (SchedPolicy p : values()) {
            if (p.kernelValue == value) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown scheduling policy number " + value);
    }

    public String lowerName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
