package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Arrays;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * /metrics' own figures on both databases, through the ingest as messages come: appliances by
 * site and state, verdicts counted once per stored result, the last run's cells (at most 32,
 * an older run's gone when the next result comes), unregistered appliances left out, and the
 * same last runs read back from the database at a restart.
 */
class FleetMetricsTest extends BothDatabases {
    private RunFigures figures;
    private Db db;

    private Ingest ingest() {
        return new Ingest(new Decoder(20 * 1024 * 1024), new IngestStore(db), new Events(),
                (m, o) -> figures.stored(m));
    }

    private String scrape(Ingest in, Map<String, Long> webhooks) throws Exception {
        PrometheusRegistry r = new PrometheusRegistry();
        r.register(new FleetMetrics(new FleetMetrics.Sources() {
            @Override
            public Db db() {
                return db;
            }

            @Override
            public RunFigures figures() {
                return figures;
            }

            @Override
            public Ingest ingest() {
                return in;
            }

            @Override
            public Map<String, Integer> queued() {
                return Map.of("a1", 2, "ghost", 1);
            }

            @Override
            public long ingestLagNs() {
                return 1_500_000_000L;
            }

            @Override
            public int ingestQueued() {
                return 3;
            }

            @Override
            public boolean mqttConnected() {
                return true;
            }

            @Override
            public Map<String, Long> webhookFailures() {
                return webhooks;
            }
        }));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, r.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Cell {@code cell} of {@code cells} with a valid start time whatever its number. */
    private static byte[] cell(String appliance, String run, int cell, int cells, String verdict, double maxUs) {
        JsonObject o = JsonParser.parseString(new String(Messages.cell(appliance, run, cell, cells, verdict, maxUs),
                StandardCharsets.UTF_8)).getAsJsonObject();
        o.addProperty("started", "2026-12-03T08:" + String.format("%02d", cell % 60) + ":00Z");
        o.addProperty("ended", "2026-12-03T08:" + String.format("%02d", cell % 60) + ":01Z");
        return Messages.bytes(o);
    }

    private static long count(String text, String prefix) {
        return Arrays.stream(text.split("\n")).filter(l -> l.startsWith(prefix)).count();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void runsAndLastRunsComeFromMemoryBoundedToRegisteredAppliancesAnd32Cells(String kind) throws Exception {
        db = db(kind);
        figures = new RunFigures(db);
        Ingest in = ingest();
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "online", false));
        in.accept("rtbox/v1/up/a2/status", Messages.status("a2", "online", true));
        in.accept("rtbox/v1/up/guest/status", Messages.status("guest", "offline", false));
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE appliance SET site = 'plant1' WHERE id IN ('a1', 'a2')");
            Sql.update(c, "UPDATE appliance SET registered = FALSE WHERE id = 'guest'");
        }
        // a1: a plan of 40 cells, FAIL, twice delivered; guest (unregistered): a PASS.
        for (int i = 1; i <= 40; i++) {
            in.accept(Messages.runTopic("a1", "r1", "cell"), cell("a1", "r1", i, 40, "FAIL", 100 + i));
        }
        in.accept(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 40, "FAIL"));
        in.accept(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 40, "FAIL"));
        in.accept(Messages.runTopic("guest", "g1", "cell"), cell("guest", "g1", 1, 1, "PASS", 10));
        in.accept(Messages.runTopic("guest", "g1", "result"), Messages.result("guest", "g1", 1, "PASS"));

        String text = scrape(in, Map.of());
        assertTrue(text.contains("rtbox_control_appliances{site=\"plant1\",state=\"online\"} 1.0"), text);
        assertTrue(text.contains("rtbox_control_appliances{site=\"plant1\",state=\"busy\"} 1.0"), text);
        assertTrue(text.contains("rtbox_control_appliances{site=\"plant1\",state=\"offline\"} 0.0"), text);
        assertTrue(text.contains("rtbox_control_appliances_unregistered 1.0"), text);
        assertTrue(text.contains("rtbox_control_runs_total{verdict=\"FAIL\"} 1.0"), "once, though it came twice: " + text);
        assertTrue(text.contains("rtbox_control_runs_total{verdict=\"PASS\"} 0.0"), "the unregistered one's counted: "
                + text);
        assertEquals(32, count(text, "rtbox_control_last_run_max_seconds{appliance=\"a1\""), text);
        assertEquals(0, count(text, "rtbox_control_last_run_max_seconds{appliance=\"guest\""), text);
        assertTrue(text.contains("rtbox_control_last_run_max_seconds{appliance=\"a1\",cell=\"32\",cell_name=\"c32\","
                + "site=\"plant1\"} 1.32E-4"), text);
        assertTrue(text.contains("rtbox_control_last_run_p99_seconds{appliance=\"a1\",cell=\"1\",cell_name=\"c1\","
                + "site=\"plant1\"} 5.05E-5"), text);
        assertTrue(text.contains("rtbox_control_last_run_cells_not_shown 8.0"), text);
        assertTrue(text.contains("rtbox_control_queued_starts{appliance=\"a1\",site=\"plant1\"} 2.0"), text);
        assertFalse(text.contains("appliance=\"ghost\""), text);
        assertTrue(text.contains("rtbox_control_ingest_lag_seconds 1.5"), text);
        assertTrue(text.contains("rtbox_control_webhook_failures_total{site=\"\"} 0.0"), text);
        assertTrue(text.contains("rtbox_control_ingest_messages_total{type=\"result\"} 2.0"), text);
        assertTrue(text.contains("rtbox_control_ingest_duplicates_total 1.0"), text);

        // The next run of a1, 2 cells: its old cells' series go.
        in.accept(Messages.runTopic("a1", "r2", "cell"), cell("a1", "r2", 1, 2, "PASS", 7));
        in.accept(Messages.runTopic("a1", "r2", "cell"), cell("a1", "r2", 2, 2, "PASS", 9));
        in.accept(Messages.runTopic("a1", "r2", "result"), Messages.result("a1", "r2", 2, "PASS"));
        text = scrape(in, Map.of("plant1", 4L));
        assertEquals(2, count(text, "rtbox_control_last_run_max_seconds{appliance=\"a1\""), text);
        assertTrue(text.contains("rtbox_control_runs_total{verdict=\"PASS\"} 1.0"), text);
        assertTrue(text.contains("rtbox_control_last_run_cells_not_shown 0.0"), text);
        assertTrue(text.contains("rtbox_control_webhook_failures_total{site=\"plant1\"} 4.0"), text);

        // A restart: the last runs read back from the database alone.
        RunFigures before = figures;
        figures = new RunFigures(db);
        figures.load();
        assertEquals(before.lastRuns(), figures.lastRuns());
    }

    @org.junit.jupiter.api.Test
    void aScrapeOfOtherFamiliesOnlyNeitherQueriesNorReadsAnything() {
        FleetMetrics.Sources none = (FleetMetrics.Sources) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {FleetMetrics.Sources.class}, (p, m, args) -> {
                    throw new AssertionError("collected: " + m.getName());
                });
        PrometheusRegistry r = new PrometheusRegistry();
        r.register(new FleetMetrics(none));
        assertEquals(0, r.scrape(name -> name.startsWith("jvm_")).size());
    }

    @org.junit.jupiter.api.Test
    void aVerdictOutsideTheProtocolsCountsAsOther() {
        assertEquals(RunFigures.VERDICTS.indexOf("other"), RunFigures.verdictIndex("MAYBE"));
        assertEquals(RunFigures.VERDICTS.indexOf("other"), RunFigures.verdictIndex(null));
        assertEquals(RunFigures.VERDICTS.indexOf("PASS"), RunFigures.verdictIndex("pass"));
    }
}
