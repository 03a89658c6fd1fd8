package rtbox.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.Workload;
import rtbox.api.WorkloadHandle;
import rtbox.core.LoadSpec;

/**
 * The workloads of one run. Starts them before the probe, stops them after it, and
 * follows their services while the probe runs: when a workload's service goes (its
 * bundle updated or removed), the running instance is stopped before its bundle's
 * classes go; when a service of that name comes back, a new instance starts with
 * the same parameters. Each swap is a run event with its time, so that the JVM's
 * pause for class loading and deoptimisation lines up with it in the report.
 */
final class LoadSet {
    /** Names a running instance and where it came from. */
    private static final class Slot {
        final LoadSpec spec;
        Workload service;
        WorkloadHandle handle;
        String version;
        int instance;
        long goneAtNs;

        Slot(LoadSpec spec) {
            this.spec = spec;
        }
    }

    private final List<Slot> slots = new ArrayList<>();
    private final RunContext context;
    private final Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    private boolean stopped;
    private final List<rtbox.api.result.JvmStall> busy = new ArrayList<>();

    LoadSet(List<LoadSpec> specs, RunContext context) {
        this.context = context;
        for (LoadSpec s : specs) {
            slots.add(new Slot(s));
        }
    }

    /** Starts every workload; on a failure, stops the ones started and throws. */
    synchronized void start(Map<String, Workload> available, java.util.function.Supplier<String> names)
            throws RtboxException {
        for (Slot s : slots) {
            Workload w = available.get(s.spec.name());
            if (w == null) {
                stopAll();
                throw new RtboxException("load", "unknown workload '" + s.spec.name() + "': available are "
                        + names.get());
            }
            try {
                s.handle = w.start(s.spec.parameters(), context);
            } catch (RtboxException | RuntimeException e) {
                stopAll();
                if (e instanceof RtboxException) {
                    throw (RtboxException) e;
                }
                throw new RtboxException("load", "workload '" + s.spec.name() + "' failed to start: " + e, e);
            }
            s.service = w;
            s.version = version(w);
            s.instance = 1;
            context.event("load", s.spec + " started (" + s.version + ")");
        }
    }

    /** True when every workload has done what it was asked and stopped on its own. */
    synchronized boolean allFinished() {
        for (Slot s : slots) {
            if (s.handle == null || !s.handle.finished()) {
                return false;
            }
        }
        return !slots.isEmpty();
    }

    /** True when any workload reports activity now (a read in flight, for example). */
    synchronized List<String> active() {
        List<String> a = new ArrayList<>();
        for (Slot s : slots) {
            if (s.handle != null && s.handle.active()) {
                a.add(s.spec.name());
            }
        }
        return a;
    }

    /** A workload service went: stop the instance it runs, before its bundle goes. */
    synchronized void removed(String name, Workload service) {
        for (Slot s : slots) {
            if (s.service == service && s.handle != null) {
                collectBusy(s);
                long t0 = System.nanoTime();
                keep(s, s.handle.stop());
                s.handle = null;
                s.goneAtNs = t0;
                context.event("swap-out", s.spec.name() + " " + s.version + " stopped in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms: its service went");
            }
        }
    }

    /** A workload service came: run it in every slot of that name, in place of what runs there. */
    synchronized void added(String name, Workload service) {
        if (stopped) {
            return;
        }
        for (Slot s : slots) {
            if (s.spec.name().equals(name) && s.instance > 0 && s.service != service) {
                String old = s.version;
                if (s.handle != null) {
                    // The service registered last is the one used: a new version replaces a running old one.
                    long t0 = System.nanoTime();
                    keep(s, s.handle.stop());
                    s.handle = null;
                    s.goneAtNs = t0;
                }
                try {
                    s.handle = service.start(s.spec.parameters(), context);
                    s.service = service;
                    s.version = version(service);
                    s.instance++;
                    context.event("swap", s.spec.name() + " " + old + " -> " + s.version + ", "
                            + (System.nanoTime() - s.goneAtNs) / 1_000_000 + " ms without it");
                } catch (RtboxException | RuntimeException e) {
                    context.event("swap-failed", s.spec.name() + " " + s.version + " did not start: " + e.getMessage());
                }
            }
        }
    }

    /** Stops every workload and returns the figures by name (earlier instances as name#1, name#2...). */
    synchronized Map<String, Map<String, Double>> stopAll() {
        stopped = true;
        for (Slot s : slots) {
            if (s.handle != null) {
                collectBusy(s);
                keep(s, s.handle.stop());
                s.handle = null;
                context.event("load", s.spec.name() + " stopped");
            }
        }
        return new LinkedHashMap<>(figures);
    }

    /** Keeps the busy windows of a workload that records them, before it is stopped. */
    private void collectBusy(Slot s) {
        if (s.handle instanceof rtbox.core.toolkit.BusyWindows) {
            long[] w = ((rtbox.core.toolkit.BusyWindows) s.handle).busyWindows();
            for (int i = 0; i + 1 < w.length; i += 2) {
                // Absolute monotonic times for now; the runner makes them run offsets.
                busy.add(new rtbox.api.result.JvmStall(w[i], w[i + 1] - w[i], "workload", s.spec.name()));
            }
        }
    }

    /** Busy windows of the workloads that record them, as (start, duration, "workload", name), absolute times. */
    synchronized List<rtbox.api.result.JvmStall> busyWindows() {
        return new ArrayList<>(busy);
    }

    private void keep(Slot s, Map<String, Double> f) {
        String name = s.spec.name();
        if (figures.containsKey(name)) {
            int k = 1;
            while (figures.containsKey(name + "#" + k)) {
                k++;
            }
            figures.put(name + "#" + k, figures.remove(name));
        }
        Map<String, Double> m = new LinkedHashMap<>(f);
        m.put("instance", (double) s.instance);
        figures.put(name, m);
    }

    private static String version(Workload w) {
        Bundle b = FrameworkUtil.getBundle(w.getClass());
        return b == null ? "?" : b.getSymbolicName() + " " + b.getVersion();
    }
}
