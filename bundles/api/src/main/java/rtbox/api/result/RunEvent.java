package rtbox.api.result;

/** A timestamped event in a run: a workload swapped, a policy applied, a stop asked. */
public record RunEvent(long offsetNs, String kind, String detail) {
}
