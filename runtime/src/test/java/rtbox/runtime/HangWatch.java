package rtbox.runtime;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints where an integration test hangs, shortly before JUnit's timeout (6 min, set in the
 * parent pom) interrupts it: every thread's stack and every child process (rtbox, brokers,
 * PostgreSQL) with its command line. An interrupt only shows the test thread, and only if it
 * was blocked interruptibly; a CI run once hung in ControlIT with nothing to read.
 * Registered for every IT through META-INF/services (junit-platform.properties).
 */
public final class HangWatch implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** Ahead of the 6-minute timeout, so the dump shows the hang and not the interrupt. */
    static final long DUMP_AFTER_SECONDS = Long.getLong("rtbox.hangwatch.seconds", 5 * 60 + 40);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hang-watch");
        t.setDaemon(true);
        return t;
    });
    private static ScheduledFuture<?> armed;

    @Override
    public void beforeAll(ExtensionContext context) {
        arm(context.getDisplayName() + " @BeforeAll");
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        arm(context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        // What follows is the next test or the class's @AfterAll.
        arm(context.getRequiredTestClass().getSimpleName() + " after " + context.getDisplayName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        synchronized (HangWatch.class) {
            if (armed != null) {
                armed.cancel(false);
                armed = null;
            }
        }
    }

    private static synchronized void arm(String phase) {
        if (armed != null) {
            armed.cancel(false);
        }
        armed = TIMER.schedule(() -> dump(phase), DUMP_AFTER_SECONDS, TimeUnit.SECONDS);
    }

    private static void dump(String phase) {
        StringBuilder b = new StringBuilder("HangWatch: ").append(phase).append(" still running after ")
                .append(DUMP_AFTER_SECONDS).append(" s; its threads:\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            b.append("  \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement f : e.getValue()) {
                b.append("      at ").append(f).append('\n');
            }
        }
        b.append("HangWatch: child processes:\n");
        ProcessHandle.current().descendants().forEach(p -> b.append("  ").append(p.pid()).append(' ')
                .append(p.info().commandLine().orElse("?")).append('\n'));
        System.out.print(b);
        System.out.flush();
    }
}
