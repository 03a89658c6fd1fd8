package rtbox.mqtt.internal;

/**
 * The one run or plan under way on the appliance (one at a time), with what stops it.
 * Thread-safe: the command thread claims and stops, the run thread ends, the io thread
 * reads it for the status.
 */
final class Activity {
    private RunSession current;
    private Runnable stopper;
    private Runnable tick;

    /** The run or plan under way, or null. */
    synchronized RunSession current() {
        return current;
    }

    /**
     * Makes {@code session} the one under way, stopped by {@code stop} and sampled by
     * {@code progress}, and returns null; while another is under way, changes nothing and
     * returns the message that says which one is.
     */
    synchronized String claim(RunSession session, Runnable stop, Runnable progress) {
        if (current != null) {
            return busy(current);
        }
        current = session;
        stopper = stop;
        tick = progress;
        return null;
    }

    /** Samples the progress of the run under way (every 500 ms, on the command thread). */
    void tick() {
        Runnable t;
        synchronized (this) {
            t = tick;
        }
        if (t != null) {
            t.run();
        }
    }

    /** The same activity, now known by a new session (a plan gets its run id once it started). */
    synchronized void replace(RunSession session) {
        current = session;
    }

    /** Ends {@code session}, if it is still the one under way. */
    synchronized void end(RunSession session) {
        if (current == session) {
            clear();
        }
    }

    /** Ends whatever is under way (the run thread's own end after a plan failed to start). */
    synchronized void clear() {
        current = null;
        stopper = null;
        tick = null;
    }

    /** Asks the run or plan under way to stop early; false when none is. */
    boolean stop() {
        Runnable s;
        synchronized (this) {
            s = stopper;
        }
        if (s == null) {
            return false;
        }
        s.run();
        return true;
    }

    static String busy(RunSession s) {
        return (s.plan() ? "plan " + s.probe + " (run " + s.id + ")" : "run " + s.id + " (" + s.probe + ")")
                + " is under way: one run at a time; stop it first";
    }
}
