package rtbox.control.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failed log-ins per user name within a window (this instance's view), for the lock after too
 * many. Bounded: a name is kept only while its window lasts, so that log-ins with ever new names
 * (a guesser's list) do not grow the map without end; the expired ones are dropped once the map
 * holds {@link #PRUNE_AT} names, which the password hash's cost per attempt keeps far off in a
 * window.
 */
final class LoginFailures {
    static final int PRUNE_AT = 1024;
    private final int maxFailures;
    private final long windowMs;
    /** user name -> {failures, start of the window in ms}. */
    private final Map<String, long[]> byName = new ConcurrentHashMap<>();

    LoginFailures(int maxFailures, long windowMs) {
        this.maxFailures = maxFailures;
        this.windowMs = windowMs;
    }

    /** Whether {@code user} has failed {@code maxFailures} times in a window that still lasts. */
    boolean locked(String user, long nowMs) {
        long[] f = byName.get(user);
        return f != null && f[0] >= maxFailures && nowMs - f[1] < windowMs;
    }

    void failed(String user, long nowMs) {
        if (byName.size() >= PRUNE_AT) {
            byName.values().removeIf(v -> nowMs - v[1] >= windowMs);
        }
        byName.compute(user, (k, v) -> v == null || nowMs - v[1] >= windowMs ? new long[] {1, nowMs}
                : new long[] {v[0] + 1, v[1]});
    }

    void succeeded(String user) {
        byName.remove(user);
    }

    /** How many names are kept (for the test of the bound). */
    int names() {
        return byName.size();
    }
}
