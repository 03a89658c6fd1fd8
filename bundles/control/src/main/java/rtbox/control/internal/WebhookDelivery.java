package rtbox.control.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Sends the webhooks' outbox ({@link WebhookOutbox}): every half second it takes the due
 * deliveries, claims each (state {@code sending}, a lease of {@link #LEASE_MS} in
 * {@code next_ms}, so that another control room on the same database does not send it too)
 * and posts it with the JDK's HttpClient, at most {@link #IN_FLIGHT} at once, each answered
 * within {@link #TIMEOUT}. A 2xx marks it delivered, never to be sent again; anything else
 * (another code, no answer, a refused connection) is a failure, counted ({@link #failures()},
 * for the metrics), and the delivery is due again after an exponential backoff (the first
 * retry after {@code firstRetryMs}, doubling, at most {@code maxRetryMs}) until it is older
 * than {@code giveUpMs}, then {@code failed}. A kill -9 between a receiver's 2xx and the
 * commit sends that delivery once more, with the same {@code X-Rtbox-Delivery}: receivers drop
 * what they have seen (at least once, the only promise an HTTP sender can keep).
 *
 * <p>The same loop turns time into events: appliances offline longer than a webhook's
 * {@code offline_after_s} (every 5 s; a spell told once per webhook, {@code webhook_offline}),
 * and the runs the ingest left to compare with their golden envelope ({@code webhook_check}),
 * each in the transaction that writes its deliveries. Nothing here runs on the ingest's
 * threads: the ingest only inserts rows.
 */
final class WebhookDelivery {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.webhooks");
    static final int IN_FLIGHT = 4;
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** A claimed delivery is free again after this long (a control room that died while sending it). */
    static final long LEASE_MS = 30_000;
    private static final long TICK_MS = 500, OFFLINE_EVERY_MS = 5_000;
    private final Db db;
    private final WebhookSecrets secrets;
    private final Compare compare;
    private final long firstRetryMs, maxRetryMs, giveUpMs;
    private final Semaphore slots = new Semaphore(IN_FLIGHT);
    private final LongAdder failures = new LongAdder(), delivered = new LongAdder();
    /** Failed attempts by the webhook's site ('*' for every site, '' for none), for the metrics. */
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> failuresBySite =
            new java.util.concurrent.ConcurrentHashMap<>();
    private ScheduledExecutorService loop;
    private ExecutorService clientPool;
    private HttpClient client;
    private long lastOfflineSweep;
    private volatile boolean stopping;

    WebhookDelivery(Db db, WebhookSecrets secrets, Compare compare, long firstRetryMs, long maxRetryMs, long giveUpMs) {
        this.db = db;
        this.secrets = secrets;
        this.compare = compare;
        this.firstRetryMs = Math.max(100, firstRetryMs);
        this.maxRetryMs = Math.max(this.firstRetryMs, maxRetryMs);
        this.giveUpMs = giveUpMs;
    }

    /**
     * Starts the loop. {@code alone}: no other control room shares the database (no
     * sharedGroup), so what is marked as being sent was this one's before a kill: due again now,
     * not after its lease.
     */
    void start(boolean alone) throws SQLException {
        if (alone) {
            try (Connection c = db.connection()) {
                Sql.update(c, "UPDATE webhook_delivery SET state = 'pending', next_ms = ? WHERE state = 'sending'",
                        System.currentTimeMillis());
            }
        }
        AtomicInteger n = new AtomicInteger();
        clientPool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "rtbox-control-webhook-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // No redirects: the admin gave this URL; a 3xx is a failure shown with its code.
        client = HttpClient.newBuilder().executor(clientPool).connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER).build();
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rtbox-control-webhooks");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** Failed attempts since this control room started (any answer but 2xx, or none). */
    long failures() {
        return failures.sum();
    }

    /** Failed attempts since this control room started, by the site of the webhook they were for. */
    java.util.Map<String, Long> failuresBySite() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        failuresBySite.forEach((site, n) -> m.put(site, n.sum()));
        return m;
    }

    /** Deliveries acknowledged with a 2xx since this control room started. */
    long delivered() {
        return delivered.sum();
    }

    void tick() {
        try {
            long now = System.currentTimeMillis();
            if (now - lastOfflineSweep >= OFFLINE_EVERY_MS) {
                lastOfflineSweep = now;
                offline(now);
            }
            envelopes(now);
            send(now);
        } catch (SQLException | RuntimeException e) {
            if (!stopping) {
                LOG.warn("webhooks: {}", Db.rootMessage(e));
            }
        }
    }

    /** The due deliveries, as many as there are free slots, claimed and sent. */
    void send(long now) throws SQLException {
        int free = slots.availablePermits();
        if (free == 0) {
            return;
        }
        List<Object[]> due;
        try (Connection c = db.connection()) {
            due = Sql.list(c, "SELECT d.id, d.state, d.next_ms, d.attempts, d.created_ms, d.event, d.body, w.url, w.secret, w.site"
                    + " FROM webhook_delivery d JOIN webhook w ON w.id = d.webhook_id WHERE d.state IN ('pending',"
                    + " 'sending') AND d.next_ms <= ? ORDER BY d.next_ms LIMIT " + free, rs -> new Object[] {
                        rs.getString(1), rs.getString(2), rs.getLong(3), rs.getInt(4), rs.getLong(5), rs.getString(6),
                        rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10)}, now);
            for (Object[] d : due) {
                if (stopping || !slots.tryAcquire()) {
                    return;
                }
                int attempt = (Integer) d[3] + 1;
                if (Sql.update(c, "UPDATE webhook_delivery SET state = 'sending', next_ms = ?, attempts = ? WHERE id = ?"
                        + " AND state = ? AND next_ms = ?", now + LEASE_MS, attempt, d[0], d[1], d[2]) != 1) {
                    slots.release(); // another control room claimed it
                    continue;
                }
                post(new Attempt((String) d[0], attempt, (Long) d[4], (String) d[9]), (String) d[5], (String) d[6],
                        (String) d[7], (String) d[8]);
            }
        }
    }

    /** One attempt of a delivery: what recording its outcome needs. */
    private record Attempt(String id, int attempt, long created, String site) {
    }

    private void post(Attempt a, String event, String body, String url, String sealed) {
        String id = a.id();
        String secret;
        try {
            secret = secrets.open(sealed, url);
        } catch (IOException e) {
            done(a, null, e.getMessage());
            return;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        long ts = System.currentTimeMillis() / 1000;
        HttpRequest req;
        try {
            req = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT)
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "rtbox-control")
                    .header(WebhookSignature.EVENT, event)
                    .header(WebhookSignature.DELIVERY, id)
                    .header(WebhookSignature.TIMESTAMP, Long.toString(ts))
                    .header(WebhookSignature.SIGNATURE, WebhookSignature.sign(secret, ts, bytes))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
        } catch (IllegalArgumentException e) {
            done(a, null, "the URL cannot be sent to");
            return;
        }
        try {
            client.sendAsync(req, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) ->
                    done(a, r == null ? null : r.statusCode(), e == null ? null : why(e)));
        } catch (RuntimeException e) {
            done(a, null, why(e));
        }
    }

    /** What went wrong, in words (no class names): shown on the webhooks page. */
    static String why(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof HttpTimeoutException) {
            return "no answer within " + TIMEOUT.toSeconds() + " s";
        }
        if (t instanceof ConnectException) {
            return "could not connect";
        }
        String m = t.getMessage();
        if (m == null || m.contains("Exception") || m.contains("java.")) {
            return "the connection failed";
        }
        return "the connection failed: " + (m.length() > 200 ? m.substring(0, 200) : m);
    }

    /** Records an attempt: delivered on a 2xx, else due again after the backoff (or given up). */
    private void done(Attempt a, Integer code, String error) {
        String id = a.id();
        int attempt = a.attempt();
        long created = a.created();
        try {
            long now = System.currentTimeMillis();
            boolean ok = code != null && code >= 200 && code < 300;
            String state;
            long next;
            if (ok) {
                delivered.increment();
                state = "delivered";
                next = now;
            } else {
                failures.increment();
                failuresBySite.computeIfAbsent(a.site(), k -> new LongAdder()).increment();
                long wait = firstRetryMs << Math.min(30, attempt - 1);
                next = now + Math.min(maxRetryMs, wait < 0 ? maxRetryMs : wait);
                state = next - created > giveUpMs ? "failed" : "pending";
                if (state.equals("failed")) {
                    LOG.warn("webhook delivery {} given up after {} attempts (last: {})", id, attempt,
                            code != null ? "HTTP " + code : error);
                }
            }
            try (Connection c = db.connection()) {
                Sql.update(c, "UPDATE webhook_delivery SET state = ?, next_ms = ?, last_ms = ?, last_code = ?,"
                        + " last_error = ?, delivered_ms = ? WHERE id = ? AND state = 'sending'", state, next, now, code,
                        ok ? null : error == null ? "HTTP " + code : error, ok ? now : null, id);
            }
        } catch (SQLException | RuntimeException e) {
            // Left 'sending': sent again after its lease (or at the next start).
            if (!stopping) {
                LOG.warn("webhook delivery {}: its outcome not recorded: {}", id, Db.rootMessage(e));
            }
        } finally {
            slots.release();
            if (code != null && code >= 200 && code < 300 && !stopping) {
                // The slot is free now, not at the next tick: a backlog (after a receiver's outage)
                // drains at the receiver's pace, not at 4 deliveries per tick (8/s, bench/control).
                try {
                    loop.execute(this::sendDue);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    // stopping
                }
            }
        }
    }

    /** {@link #send} off the tick, on the loop's thread. */
    private void sendDue() {
        try {
            send(System.currentTimeMillis());
        } catch (SQLException | RuntimeException e) {
            if (!stopping) {
                LOG.warn("webhooks: {}", Db.rootMessage(e));
            }
        }
    }

    /** Appliances offline longer than a webhook's offline_after_s, each spell told once to each webhook. */
    void offline(long now) throws SQLException {
        try (Connection c = db.connection()) {
            List<Object[]> spells = Sql.list(c, "SELECT w.id, a.id, a.last_seen_ms, COALESCE(a.site, '') FROM webhook w"
                    + " JOIN appliance a ON w.site = '*' OR w.site = COALESCE(a.site, '')"
                    + " WHERE w.offline_after_s IS NOT NULL AND a.registered AND a.state = 'offline'"
                    + " AND a.last_seen_ms + w.offline_after_s * 1000 < ? AND NOT EXISTS (SELECT 1 FROM webhook_offline o"
                    + " WHERE o.webhook_id = w.id AND o.appliance = a.id AND o.last_seen_ms = a.last_seen_ms)"
                    + " ORDER BY a.last_seen_ms LIMIT 100", rs -> new Object[] {rs.getLong(1), rs.getString(2),
                        rs.getLong(3), rs.getString(4)}, now);
            for (Object[] s : spells) {
                c.setAutoCommit(false);
                try {
                    if (Sql.insertIfAbsent(c, db.postgres, "INSERT INTO webhook_offline (webhook_id, appliance,"
                            + " last_seen_ms) VALUES (?, ?, ?)", s[0], s[1], s[2])) {
                        JsonObject f = new JsonObject();
                        f.addProperty("site", (String) s[3]);
                        f.addProperty("appliance", (String) s[1]);
                        f.addProperty("last_seen", Json.iso((Long) s[2]));
                        f.addProperty("offline_s", (now - (Long) s[2]) / 1000);
                        WebhookOutbox.write(c, (Long) s[0], WebhookOutbox.OFFLINE, f, now);
                    }
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }
    }

    /** The runs left to compare with their golden envelope: a delivery for those outside it. */
    void envelopes(long now) throws SQLException {
        List<String[]> runs;
        try (Connection c = db.connection()) {
            runs = Sql.list(c, "SELECT appliance, run_id FROM webhook_check ORDER BY created_ms LIMIT 20",
                    rs -> new String[] {rs.getString(1), rs.getString(2)});
        }
        for (String[] r : runs) {
            JsonObject cmp;
            try {
                cmp = compare.compare(r[0] + "/" + r[1], null, "golden");
            } catch (BadRequest e) {
                cmp = null; // no model, no reference: nothing to be outside of
            }
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                if (Sql.update(c, "DELETE FROM webhook_check WHERE appliance = ? AND run_id = ?", r[0], r[1]) == 1
                        && cmp != null && cmp.has("inside") && !cmp.get("inside").getAsBoolean()) {
                    String site = Sql.one(c, "SELECT site FROM run WHERE appliance = ? AND run_id = ?",
                            rs -> rs.getString(1), r[0], r[1]);
                    JsonObject f = outside(site == null ? "" : site, r[0], r[1], cmp);
                    for (Object[] h : Sql.list(c, "SELECT id, events FROM webhook WHERE site = ? OR site = '*'",
                            rs -> new Object[] {rs.getLong(1), rs.getString(2)}, site == null ? "" : site)) {
                        if (WebhookOutbox.asks((String) h[1], WebhookOutbox.ENVELOPE)) {
                            WebhookOutbox.write(c, (Long) h[0], WebhookOutbox.ENVELOPE, f, now);
                        }
                    }
                }
                c.commit();
            }
        }
    }

    private static JsonObject outside(String site, String appliance, String run, JsonObject cmp) {
        JsonObject f = new JsonObject();
        f.addProperty("site", site);
        f.addProperty("appliance", appliance);
        f.addProperty("run", run);
        f.add("verdict", cmp.get("verdict"));
        f.add("reading", cmp.get("reading"));
        JsonArray cells = new JsonArray();
        for (JsonElement e : cmp.getAsJsonArray("cells")) {
            JsonObject env = e.getAsJsonObject().getAsJsonObject("envelope");
            if (env != null && !env.get("inside").getAsBoolean()) {
                JsonObject cell = new JsonObject();
                cell.add("name", e.getAsJsonObject().get("name"));
                cell.add("outside", env.get("outside"));
                cells.add(cell);
            }
        }
        f.add("cells_outside", cells);
        return f;
    }

    /** Stops the loop and the client's threads; deliveries under way stay claimed and are sent again later. */
    void stop() {
        stopping = true;
        if (loop != null) {
            loop.shutdownNow();
            try {
                loop.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            loop = null;
        }
        if (clientPool != null) {
            clientPool.shutdownNow();
            clientPool = null;
        }
        // Java 21's HttpClient closes (its selector thread with it); Java 17's ends that thread itself once
        // the client is unreferenced and idle.
        if (client instanceof AutoCloseable a) {
            try {
                a.close();
            } catch (Exception e) {
                // closing is best effort
            }
        }
        client = null;
    }
}
