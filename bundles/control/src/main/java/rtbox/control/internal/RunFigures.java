package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.mqtt.protocol.Outcome;

/**
 * What /metrics says of runs, kept in memory so that a scrape reads no table of runs or cells
 * (issue 34): per appliance, how many results this instance stored by verdict since it started,
 * and its last run's p99 and maximum per cell. Loaded once at start (the last run of every
 * appliance, one query), then kept by the ingest: after each result it stores, that run's cells
 * are read by their key (one small query per run, not per scrape). A scrape copies the map.
 *
 * <p>Bounded: one entry per appliance the database knows, at most {@link #MAX_CELLS} cells of its
 * last run (a plan's first cells by index; the count left out is kept), and the verdicts the
 * protocol has (anything else counts as {@code other}). Which appliances are shown (registered
 * ones) is the scrape's choice ({@link FleetMetrics}).
 */
final class RunFigures {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.metrics");
    /** Cells per appliance shown: a plan rarely has more; past it, series would grow with plan size. */
    static final int MAX_CELLS = 32;
    /** The verdict labels: the protocol's outcomes, then one for anything else. */
    static final List<String> VERDICTS;

    static {
        List<String> v = new ArrayList<>();
        for (Outcome o : Outcome.values()) {
            v.add(o.name());
        }
        v.add("other");
        VERDICTS = List.copyOf(v);
    }

    /** A cell of a last run: its index, name, p99 and maximum in microseconds (NaN: not measured). */
    record Cell(int index, String name, double p99Us, double maxUs) {
    }

    /** An appliance's last run: its id, its first {@link #MAX_CELLS} cells, and how many more it had. */
    record LastRun(String run, List<Cell> cells, int cellsLeftOut) {
    }

    private final Db db;
    private final Map<String, LastRun> last = new ConcurrentHashMap<>();
    private final Map<String, LongAdder[]> verdicts = new ConcurrentHashMap<>();

    RunFigures(Db db) {
        this.db = db;
    }

    /** Every appliance's last run, as the database has it: once, at start. */
    void load() throws SQLException {
        Map<String, List<Cell>> cells = new HashMap<>();
        Map<String, String> runs = new HashMap<>();
        try (Connection c = db.connection()) {
            Sql.list(c, "SELECT a.id, a.last_run, c.cell, c.name, c.p99_us, c.max_us FROM appliance a JOIN cell c"
                    + " ON c.appliance = a.id AND c.run_id = a.last_run ORDER BY a.id, c.cell", rs -> {
                        runs.put(rs.getString(1), rs.getString(2));
                        return cells.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(cell(rs));
                    });
        }
        cells.forEach((appliance, list) -> last.put(appliance, bounded(runs.get(appliance), list)));
    }

    /** After the ingest stored a message (first time only): a result counts and makes its run the last. */
    void stored(Inbound m) {
        if (m.kind() != Inbound.Kind.RESULT) {
            return;
        }
        verdicts.computeIfAbsent(m.appliance(), k -> adders())[verdictIndex(m.string("verdict"))].increment();
        try (Connection c = db.connection()) {
            List<Cell> cells = Sql.list(c, "SELECT cell, name, p99_us, max_us FROM cell WHERE appliance = ? AND run_id = ?"
                    + " ORDER BY cell", RunFigures::cell, m.appliance(), m.run());
            last.put(m.appliance(), bounded(m.run(), cells));
        } catch (SQLException e) {
            // The figures of this run are missing from /metrics until the next one; nothing stored is lost.
            LOG.warn("cannot read the cells of run {} of {} for /metrics: {}", m.run(), m.appliance(),
                    Db.rootMessage(e));
        }
    }

    private static Cell cell(java.sql.ResultSet rs) throws SQLException {
        double p99 = rs.getDouble("p99_us");
        if (rs.wasNull()) {
            p99 = Double.NaN;
        }
        double max = rs.getDouble("max_us");
        if (rs.wasNull()) {
            max = Double.NaN;
        }
        String name = rs.getString("name");
        return new Cell(rs.getInt("cell"), name == null ? "" : name.length() > 64 ? name.substring(0, 64) : name, p99,
                max);
    }

    private static LastRun bounded(String run, List<Cell> cells) {
        int shown = Math.min(MAX_CELLS, cells.size());
        return new LastRun(run, List.copyOf(cells.subList(0, shown)), cells.size() - shown);
    }

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[VERDICTS.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    static int verdictIndex(String verdict) {
        int i = verdict == null ? -1 : VERDICTS.indexOf(verdict.toUpperCase(Locale.ROOT));
        return i < 0 ? VERDICTS.size() - 1 : i;
    }

    /** Each appliance's last run (a copy of this moment). */
    Map<String, LastRun> lastRuns() {
        return Map.copyOf(last);
    }

    /** Results stored since start by appliance, counts in {@link #VERDICTS}' order. */
    Map<String, long[]> verdicts() {
        Map<String, long[]> out = new HashMap<>();
        verdicts.forEach((appliance, adders) -> {
            long[] n = new long[adders.length];
            for (int i = 0; i < n.length; i++) {
                n[i] = adders[i].sum();
            }
            out.put(appliance, n);
        });
        return out;
    }
}
