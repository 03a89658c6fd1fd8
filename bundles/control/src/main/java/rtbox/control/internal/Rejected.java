package rtbox.control.internal;

/** A message the ingest does not store; {@code reason} is one of {@link #REASONS}. */
final class Rejected extends Exception {
    static final java.util.List<String> REASONS = java.util.List.of("bad-topic", "not-json", "unknown-schema",
            "appliance-mismatch", "bad-message", "out-of-range", "oversize", "rate-limited");
    final String reason;

    Rejected(String reason, String detail) {
        super(detail);
        if (!REASONS.contains(reason)) {
            throw new IllegalArgumentException(reason);
        }
        this.reason = reason;
    }
}
