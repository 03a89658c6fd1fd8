package rtbox.runtime.fleet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * N simulated appliances ({@link SimulatedAppliance}), for tests and bench/fleet: each with
 * its own id, user name and password, client id, status and last will, on its own list of
 * broker URIs (so a fleet spreads over a cluster's nodes). They share a few scheduler
 * threads; Paho gives each its own connection and threads, as N appliances would have.
 *
 * <p>{@link #runPlans} has every idle appliance start a plan (as its {@code plan} command
 * does) until {@link #stopPlans}: results keep flowing while a test breaks things.
 */
public final class SimulatedFleet implements AutoCloseable {
    private final List<SimulatedAppliance> appliances = new ArrayList<>();
    private final ScheduledExecutorService scheduler;
    private volatile boolean planning;
    private volatile int cells;
    private volatile long cellMs;
    /** When each appliance may start its next plan (epoch ms): spreads the first plans over time. */
    private volatile long[] notBefore = new long[0];
    /** Appliances whose plans a test starts itself (a flooder): {@link #runPlans} leaves them alone. */
    private final java.util.Set<SimulatedAppliance> ownPlans = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * {@code ids[i]}'s password is {@code password.apply(i)}, its brokers {@code brokers.apply(i)};
     * its status is repeated every {@code heartbeatSeconds} (0: never).
     */
    public SimulatedFleet(List<String> ids, IntFunction<String> password, IntFunction<String[]> brokers,
            int heartbeatSeconds) throws IOException {
        AtomicInteger n = new AtomicInteger();
        scheduler = Executors.newScheduledThreadPool(4, r -> {
            Thread t = new Thread(r, "fleet-simulator-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        RecordedPayloads payloads = new RecordedPayloads();
        for (int i = 0; i < ids.size(); i++) {
            appliances.add(new SimulatedAppliance(ids.get(i), password.apply(i), brokers.apply(i), scheduler, payloads,
                    heartbeatSeconds));
        }
    }

    /** Connects every appliance (spread over {@code spreadMs}, as a fleet does not boot in one instant). */
    public SimulatedFleet start(long spreadMs) {
        for (int i = 0; i < appliances.size(); i++) {
            SimulatedAppliance a = appliances.get(i);
            scheduler.schedule(a::start, spreadMs * i / Math.max(1, appliances.size()), TimeUnit.MILLISECONDS);
        }
        scheduler.scheduleWithFixedDelay(this::startIdle, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    public List<SimulatedAppliance> appliances() {
        return appliances;
    }

    public SimulatedAppliance get(int i) {
        return appliances.get(i);
    }

    /** True once every appliance is connected, or false after {@code timeoutMs}. */
    public boolean awaitConnected(long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (appliances.stream().allMatch(SimulatedAppliance::connected)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** Each idle appliance starts a plan of {@code cells} cells, one every {@code cellMs}, again and again. */
    public void runPlans(int cells, long cellMs) {
        runPlans(cells, cellMs, 0);
    }

    /**
     * As {@link #runPlans(int, long)}, the first plans started evenly over {@code spreadMs}
     * (appliance i after i/N of it), as a fleet whose plans did not all start in one instant:
     * at a slow pace, a fleet started at once would send its cells in bursts of N.
     */
    public void runPlans(int cells, long cellMs, long spreadMs) {
        this.cells = cells;
        this.cellMs = cellMs;
        long now = System.currentTimeMillis();
        long[] at = new long[appliances.size()];
        for (int i = 0; i < at.length; i++) {
            at[i] = now + spreadMs * i / Math.max(1, at.length);
        }
        notBefore = at;
        planning = true;
    }

    /**
     * Leaves {@code a} out of {@link #runPlans}: a test starts its plans itself, at a pace of its
     * own (a flooder), and the fleet's slower plans must not take its idle moments.
     */
    public void leaveOutOfPlans(SimulatedAppliance a) {
        ownPlans.add(a);
    }

    /** No new plan starts; those under way finish. */
    public void stopPlans() {
        planning = false;
    }

    private void startIdle() {
        if (!planning) {
            return;
        }
        long now = System.currentTimeMillis();
        long[] at = notBefore;
        for (int i = 0; i < appliances.size(); i++) {
            SimulatedAppliance a = appliances.get(i);
            if ((i >= at.length || now >= at[i]) && !a.busy() && !ownPlans.contains(a)) {
                a.startPlan(cells, cellMs);
            }
        }
    }

    /**
     * True once no live appliance is in a plan and every live one's outbox is empty (all
     * acknowledged), or false after {@code timeoutMs}. A crashed one is left out: its outbox
     * waits for a restart that a test does not give it.
     */
    public boolean awaitDrained(long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (appliances.stream().filter(a -> !a.stopped()).noneMatch(a -> a.busy() || a.outboxSize() > 0)) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** The live appliances still busy or holding messages, for a failure message: id, connected, outbox. */
    public String stuck() {
        StringBuilder b = new StringBuilder();
        appliances.stream().filter(a -> !a.stopped() && (a.busy() || a.outboxSize() > 0)).limit(20).forEach(a -> b
                .append(a.id()).append(a.connected() ? " connected" : " not connected").append(a.busy() ? " busy" : "")
                .append(" outbox ").append(a.outboxSize()).append(" (").append(a.lastError()).append("); "));
        return b.toString();
    }

    /** Messages waiting in the live appliances' outboxes. */
    public int outboxTotal() {
        return appliances.stream().filter(a -> !a.stopped()).mapToInt(SimulatedAppliance::outboxSize).sum();
    }

    /** Every cell and result the live appliances made that the broker has not acknowledged yet. */
    public Set<SimulatedAppliance.Key> unacknowledged() {
        Set<SimulatedAppliance.Key> all = new HashSet<>();
        for (SimulatedAppliance a : appliances) {
            if (!a.stopped()) {
                all.addAll(a.queued());
                all.removeAll(a.acknowledged());
            }
        }
        return all;
    }

    /** Every cell and result the broker acknowledged, of every appliance. */
    public Set<SimulatedAppliance.Key> acknowledged() {
        Set<SimulatedAppliance.Key> all = new HashSet<>();
        appliances.forEach(a -> all.addAll(a.acknowledged()));
        return all;
    }

    /** Every cell and result made, acknowledged or not. */
    public Set<SimulatedAppliance.Key> queued() {
        Set<SimulatedAppliance.Key> all = new HashSet<>();
        appliances.forEach(a -> all.addAll(a.queued()));
        return all;
    }

    /** Connections lost or connection attempts failed, of all. */
    public long connectionsLost() {
        return appliances.stream().mapToLong(SimulatedAppliance::connectionsLost).sum();
    }

    /** Publishes made by all, repeats included. */
    public long publishes() {
        return appliances.stream().mapToLong(SimulatedAppliance::publishes).sum();
    }

    @Override
    public void close() throws InterruptedException {
        planning = false;
        List<Thread> stops = new ArrayList<>();
        for (SimulatedAppliance a : appliances) {
            Thread t = new Thread(a::stop);
            t.setDaemon(true);
            t.start();
            stops.add(t);
        }
        for (Thread t : stops) {
            t.join(5000);
        }
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }
}
