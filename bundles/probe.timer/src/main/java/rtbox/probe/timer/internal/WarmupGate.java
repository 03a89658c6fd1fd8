package rtbox.probe.timer.internal;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import rtbox.api.RtboxException;

/**
 * Lets all measuring threads finish their warm-up, then gives them one common start
 * time, so that every thread's samples share one time line.
 */
final class WarmupGate {
    private final CountDownLatch warm;
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long startNanos;

    WarmupGate(int threads) {
        this.warm = new CountDownLatch(threads);
    }

    /** Called by a measuring thread when warm (or failed); returns the common start time. */
    long warmAndWait() throws InterruptedException {
        warm.countDown();
        go.await();
        return startNanos;
    }

    /**
     * Called by the coordinator: waits for all threads, then releases them; a stop requested
     * meanwhile cuts their warm-up short.
     */
    long awaitWarm(List<TimerThread> threads, java.util.function.BooleanSupplier stopRequested) throws RtboxException {
        try {
            while (!warm.await(100, TimeUnit.MILLISECONDS)) {
                if (stopRequested.getAsBoolean()) {
                    // A stop during the warm-up ends it now; the threads then measure nothing.
                    threads.forEach(TimerThread::requestStop);
                }
                for (TimerThread t : threads) {
                    if (t.failure() != null) {
                        throw t.failure();
                    }
                }
            }
            for (TimerThread t : threads) {
                if (t.failure() != null) {
                    throw t.failure();
                }
            }
            // A little ahead, so every thread is back asleep before its first deadline.
            startNanos = System.nanoTime() + 2_000_000;
            return startNanos;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RtboxException("run", "interrupted during warm-up");
        } finally {
            go.countDown();
        }
    }
}
