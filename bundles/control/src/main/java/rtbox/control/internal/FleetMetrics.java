package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The control room's own metrics (docs/grafana.md lists them), made at each scrape as the
 * Prometheus client's snapshots: from memory ({@link RunFigures}, the ingest's counters, the
 * link's queue) and two queries whose cost grows with the fleet, not with the history: the
 * appliance table (one row an appliance: state, site, registered) and the start queue's
 * waiting entries (as the fleet page counts them).
 *
 * <p>Label cardinality is bounded: {@code site} by the sites an admin set; {@code appliance} by
 * the registered appliances (an unknown client that reaches the broker adds none: issue 31);
 * {@code cell} by {@link RunFigures#MAX_CELLS} per appliance, of its last run only (an older
 * run's series go when the next result comes); {@code verdict}, {@code type} and
 * {@code reason} by closed lists.
 */
final class FleetMetrics implements MultiCollector {
    /** The appliance states shown, each with a series per site even at 0. */
    static final List<String> STATES = List.of("online", "busy", "offline");

    /** What the collector reads; the control room's components in production, stand-ins in tests. */
    interface Sources {
        Db db();

        RunFigures figures();

        Ingest ingest();

        /** Starts waiting per appliance (queued or being sent). */
        Map<String, Integer> queued() throws SQLException;

        long ingestLagNs();

        int ingestQueued();

        boolean mqttConnected();

        /** Failed webhook deliveries by site; empty without a webhook component. */
        Map<String, Long> webhookFailures();
    }

    /**
     * The families it makes: the registry skips the collector (and its queries) for a scrape
     * whose {@code name[]} filter names none of them.
     */
    static final List<String> NAMES = List.of("rtbox_control_appliances", "rtbox_control_appliances_unregistered",
            "rtbox_control_runs", "rtbox_control_last_run_p99_seconds", "rtbox_control_last_run_max_seconds",
            "rtbox_control_last_run_cells_not_shown", "rtbox_control_queued_starts", "rtbox_control_ingest_messages",
            "rtbox_control_ingest_rejected", "rtbox_control_ingest_duplicates", "rtbox_control_ingest_lag_seconds",
            "rtbox_control_ingest_queued_messages", "rtbox_control_mqtt_connected", "rtbox_control_webhook_failures");
    private final Sources in;

    FleetMetrics(Sources in) {
        this.in = in;
    }

    @Override
    public List<String> getPrometheusNames() {
        return NAMES;
    }

    private record Appliance(String site, String state, boolean registered) {
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Appliance> appliances = new HashMap<>();
        Map<String, Integer> queued;
        try (Connection c = in.db().connection()) {
            Sql.list(c, "SELECT id, site, state, busy, registered FROM appliance", rs -> {
                String site = rs.getString(2);
                String state = "online".equals(rs.getString(3)) ? rs.getBoolean(4) ? "busy" : "online" : "offline";
                return appliances.put(rs.getString(1), new Appliance(site == null ? "" : site, state,
                        rs.getBoolean(5)));
            });
            queued = in.queued();
        } catch (SQLException e) {
            // The servlet answers 503 and names the database; Prometheus marks the target down.
            throw new IllegalStateException("the control room's database failed: " + Db.rootMessage(e), e);
        }
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(fleet(appliances));
        out.add(gauge("rtbox_control_appliances_unregistered", "Appliances heard of but not registered (an admin"
                + " accepts them): they count for nothing of the fleet.",
                List.of(point(Labels.EMPTY, appliances.values().stream().filter(a -> !a.registered).count()))));
        runs(appliances, out);
        List<GaugeDataPointSnapshot> queue = new ArrayList<>();
        for (Map.Entry<String, Integer> q : new TreeMap<>(queued).entrySet()) {
            Appliance a = appliances.get(q.getKey());
            if (a != null && a.registered) {
                queue.add(point(Labels.of("appliance", q.getKey(), "site", a.site), q.getValue()));
            }
        }
        out.add(gauge("rtbox_control_queued_starts", "Starts waiting in an appliance's queue (queued or being sent);"
                + " appliances with none have no series.", queue));
        ingest(out);
        List<CounterDataPointSnapshot> hooks = new ArrayList<>();
        new TreeMap<>(in.webhookFailures()).forEach((site, n) -> hooks.add(counter(Labels.of("site", site), n)));
        if (hooks.isEmpty()) {
            hooks.add(counter(Labels.of("site", ""), 0));
        }
        out.add(counters("rtbox_control_webhook_failures", "Webhook delivery attempts that failed (each retry"
                + " counts), by the webhook's site.", hooks));
        return new MetricSnapshots(out);
    }

    private static MetricSnapshot fleet(Map<String, Appliance> appliances) {
        Map<String, long[]> bySite = new TreeMap<>();
        for (Appliance a : appliances.values()) {
            if (a.registered) {
                bySite.computeIfAbsent(a.site, s -> new long[STATES.size()])[STATES.indexOf(a.state)]++;
            }
        }
        List<GaugeDataPointSnapshot> points = new ArrayList<>();
        bySite.forEach((site, n) -> {
            for (int i = 0; i < n.length; i++) {
                points.add(point(Labels.of("site", site, "state", STATES.get(i)), n[i]));
            }
        });
        return gauge("rtbox_control_appliances", "Registered appliances by site and state (busy: online and running"
                + " a plan; offline: said so, or not heard from for silentAfterSeconds).", points);
    }

    private void runs(Map<String, Appliance> appliances, List<MetricSnapshot> out) {
        long[] total = new long[RunFigures.VERDICTS.size()];
        in.figures().verdicts().forEach((appliance, n) -> {
            Appliance a = appliances.get(appliance);
            if (a != null && a.registered) {
                for (int i = 0; i < n.length; i++) {
                    total[i] += n[i];
                }
            }
        });
        List<CounterDataPointSnapshot> verdicts = new ArrayList<>();
        for (int i = 0; i < total.length; i++) {
            verdicts.add(counter(Labels.of("verdict", RunFigures.VERDICTS.get(i)), total[i]));
        }
        out.add(counters("rtbox_control_runs", "Results of registered appliances' runs stored by this control room"
                + " since it started, by verdict.", verdicts));
        List<GaugeDataPointSnapshot> p99 = new ArrayList<>(), max = new ArrayList<>();
        long leftOut = 0;
        for (Map.Entry<String, RunFigures.LastRun> e : new TreeMap<>(in.figures().lastRuns()).entrySet()) {
            Appliance a = appliances.get(e.getKey());
            if (a == null || !a.registered) {
                continue;
            }
            leftOut += e.getValue().cellsLeftOut();
            for (RunFigures.Cell cell : e.getValue().cells()) {
                Labels l = Labels.of("appliance", e.getKey(), "cell", Integer.toString(cell.index()), "cell_name",
                        cell.name(), "site", a.site);
                if (!Double.isNaN(cell.p99Us())) {
                    p99.add(point(l, cell.p99Us() / 1e6));
                }
                if (!Double.isNaN(cell.maxUs())) {
                    max.add(point(l, cell.maxUs() / 1e6));
                }
            }
        }
        out.add(gauge("rtbox_control_last_run_p99_seconds", "The 99th percentile latency of each cell of the"
                + " appliance's last run (the last result stored), at most " + RunFigures.MAX_CELLS + " cells.", p99));
        out.add(gauge("rtbox_control_last_run_max_seconds", "The worst latency of each cell of the appliance's last run,"
                + " at most " + RunFigures.MAX_CELLS + " cells.", max));
        out.add(gauge("rtbox_control_last_run_cells_not_shown", "Cells of last runs beyond the " + RunFigures.MAX_CELLS
                + " shown per appliance.", List.of(point(Labels.EMPTY, leftOut))));
    }

    private void ingest(List<MetricSnapshot> out) {
        Ingest ingest = in.ingest();
        List<CounterDataPointSnapshot> stored = new ArrayList<>();
        ingest.storedByType().forEach((type, n) -> stored.add(counter(Labels.of("type", type), n)));
        out.add(counters("rtbox_control_ingest_messages", "Appliance messages stored since start, by type (rate():"
                + " the ingest's rate).", stored));
        List<CounterDataPointSnapshot> rejected = new ArrayList<>();
        ingest.rejectedByReason().forEach((reason, n) -> rejected.add(counter(Labels.of("reason", reason), n)));
        out.add(counters("rtbox_control_ingest_rejected", "Appliance messages not stored since start, by reason.",
                rejected));
        out.add(counters("rtbox_control_ingest_duplicates", "Messages that came again (a QoS 1 redelivery, a journal"
                + " published again) and were already stored.", List.of(counter(Labels.EMPTY, ingest.duplicates()))));
        out.add(gauge("rtbox_control_ingest_lag_seconds", "How long the oldest message that arrived and is not stored"
                + " yet has waited (0: none waits).", List.of(point(Labels.EMPTY, in.ingestLagNs() / 1e9))));
        out.add(gauge("rtbox_control_ingest_queued_messages", "Messages decoded and waiting for the ingest's writer.",
                List.of(point(Labels.EMPTY, in.ingestQueued()))));
        out.add(gauge("rtbox_control_mqtt_connected", "1 while the control room's MQTT session is connected.",
                List.of(point(Labels.EMPTY, in.mqttConnected() ? 1 : 0))));
    }

    private static GaugeDataPointSnapshot point(Labels labels, double value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static CounterDataPointSnapshot counter(Labels labels, double value) {
        return CounterDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static GaugeSnapshot gauge(String name, String help, List<GaugeDataPointSnapshot> points) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        points.forEach(b::dataPoint);
        return b.build();
    }

    private static CounterSnapshot counters(String name, String help, List<CounterDataPointSnapshot> points) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
        points.forEach(b::dataPoint);
        return b.build();
    }

    /** The sources of a running control room. */
    static Sources of(ControlRoom room, Supplier<Map<String, Long>> webhookFailures) {
        return new Sources() {
            @Override
            public Db db() {
                return room.db;
            }

            @Override
            public RunFigures figures() {
                return room.ingestComponent.figures();
            }

            @Override
            public Ingest ingest() {
                return room.ingest;
            }

            @Override
            public Map<String, Integer> queued() throws SQLException {
                return room.operations.queue().counts();
            }

            @Override
            public long ingestLagNs() {
                return room.link.ingestLagNs();
            }

            @Override
            public int ingestQueued() {
                return room.link.ingestQueued();
            }

            @Override
            public boolean mqttConnected() {
                return room.link.connected();
            }

            @Override
            public Map<String, Long> webhookFailures() {
                return webhookFailures.get();
            }
        };
    }
}
