package rtbox.runtime;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the ITs wait: on a condition, with a deadline, never a fixed sleep where something can
 * be observed (a fixed sleep is either too short on a loaded CI machine or wasted time on an
 * idle one). The few fixed sleeps left say at their place why nothing can be observed there:
 * a quiet period that proves something does not come, a time window a scenario needs, or a
 * state of a peer (a broker cluster's bindings) that no client can see.
 */
final class Await {
    /** A condition that may fail with an exception (an HTTP call, a file read): it then counts as not yet. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /** What was awaited, computed only on failure, so it can show the state then (it may call the system too). */
    @FunctionalInterface
    interface Description {
        String get() throws Exception;
    }

    private Await() {
    }

    /**
     * Returns as soon as {@code condition} holds; an AssertionError naming {@code what} (computed then,
     * so it can show the state it waited on) when it did not within {@code timeoutMs}.
     */
    static void until(long timeoutMs, Description what, Condition condition) throws InterruptedException {
        Exception last = poll(timeoutMs, condition);
        if (last == HELD) {
            return;
        }
        String described;
        try {
            described = what.get();
        } catch (Exception e) {
            described = "(" + e + ")";
        }
        AssertionError failure = new AssertionError("not within " + timeoutMs + " ms: " + described);
        if (last != null) {
            failure.initCause(last);
        }
        throw failure;
    }

    /** Whether {@code condition} came to hold within {@code timeoutMs}: for a test that asserts on it itself. */
    static boolean within(long timeoutMs, Condition condition) throws InterruptedException {
        return poll(timeoutMs, condition) == HELD;
    }

    private static final Exception HELD = new Exception("held");

    /** Polls (5 ms, doubling to 200 ms) until the condition holds (HELD) or the deadline: then its last failure or null. */
    private static Exception poll(long timeoutMs, Condition condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long pauseMs = 5;
        Exception last = null;
        while (true) {
            try {
                if (condition.holds()) {
                    return HELD;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - end > 0) {
                return last;
            }
            Thread.sleep(pauseMs);
            pauseMs = Math.min(pauseMs * 2, 200);
        }
    }

    /** Kills process {@code pid} (SIGKILL) and returns once it is gone: what a crash test needs before a restart. */
    static void killed(long pid) throws Exception {
        java.util.Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty()) {
            return;
        }
        h.get().destroyForcibly();
        try {
            h.get().onExit().get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("process " + pid + " still alive 30 s after SIGKILL", e);
        }
    }
}
