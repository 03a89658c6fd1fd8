package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.function.LongFunction;

import com.google.gson.JsonObject;

import rtbox.core.Build;
import rtbox.core.Runner;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.RunMessage;
import rtbox.mqtt.protocol.Status;

/**
 * Over 400 lines: it is the one place the verb families share, so the outbox's disk rules
 * (pending bytes, free space, the queue order) and the run bookkeeping (the active-run file,
 * interrupted runs) that every family calls live here together; each part is small and
 * stateless beyond the fields they share. Split candidate: the outbox queueing into its own
 * class when a second user of it appears.
 *
 * <p>What the verb families of one serving appliance share: its id and folders, the run
 * under way ({@link Activity}), the run thread, and the way out (the durable
 * {@link Outbox}, drained by the {@link Link}). Made by the {@link Appliance} when it
 * activates, handed to every {@link Verbs} call.
 */
final class Station {
    /** The kernel and its preemption model, for the status: read once, they do not change while it runs. */
    private static final String KERNEL = kernelRelease(), PREEMPTION = rtbox.os.Preemption.model();
    private final String appliance;
    private final MqttConfig config;
    private final Path dataDir;
    private final Path plansDir;
    private final Outbox outbox;
    private final Activity activity = new Activity();
    private final ExecutorService runs;
    private final Runner runner;
    private final long startedMs = System.currentTimeMillis();
    private volatile Link link;
    private volatile Path trialDir;
    private volatile java.util.function.Supplier<TreeSet<String>> verbs = TreeSet::new;
    private volatile boolean closing;
    /** What a crash or power loss cut short, until the family of its kind takes it. */
    private RunSession interrupted;
    /** Messages the outbox could not take yet, oldest first ({@link #enqueue}); guarded by this. */
    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    /** The payload bytes in {@link #pending}; guarded by this. */
    private long pendingBytes;
    /** Damage found in the stores beside the outbox (journal, request log), by source: for the status. */
    private final java.util.Map<String, List<String>> damage = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Set by a verb that sends messages after its reply; only the command thread uses it. */
    private Runnable afterReply;

    Station(String appliance, MqttConfig config, Path dataDir, Path plansDir, Outbox outbox, ExecutorService runs,
            Runner runner) {
        this.appliance = appliance;
        this.config = config;
        this.dataDir = dataDir;
        this.plansDir = plansDir;
        this.outbox = outbox;
        this.runs = runs;
        this.runner = runner;
    }

    void connect(Link l) {
        this.link = l;
    }

    /** The verbs this appliance answers now. */
    TreeSet<String> verbs() {
        return verbs.get();
    }

    /** Gives a command's reply later, on the command thread (a verb that answered {@link Reply#LATER}). */
    interface Answerer {
        void answer(String requestId, String verb, java.util.function.Supplier<Reply> reply);
    }

    private volatile Answerer answerer;

    void answerer(Answerer a) {
        answerer = a;
    }

    /** {@code reply} is made and sent on the command thread, after the commands before it. */
    void answerLater(String requestId, String verb, java.util.function.Supplier<Reply> reply) {
        answerer.answer(requestId, verb, reply);
    }

    void verbs(java.util.function.Supplier<TreeSet<String>> v) {
        verbs = v;
    }

    String appliance() {
        return appliance;
    }

    MqttConfig config() {
        return config;
    }

    Path dataDir() {
        return dataDir;
    }

    /**
     * Where a set-config of rtbox.mqtt on trial is recorded ({@link ConfigTrial}): the default
     * data folder, which no setting moves, so that the appliance the new settings start (with
     * another dataDir, maybe) and the one a rollback starts both find it.
     */
    Path trialDir() {
        Path t = trialDir;
        return t == null ? dataDir : t;
    }

    void trialDir(Path dir) {
        trialDir = dir;
    }

    /** Where the {@code plan} verb finds a plan by name. */
    Path plansDir() {
        return plansDir;
    }

    Outbox outbox() {
        return outbox;
    }

    Activity activity() {
        return activity;
    }

    /** The file that marks the run under way, for the restart after a crash. */
    Path activeFile() {
        return dataDir.resolve("run.active");
    }

    /** The thread that measures: one run or plan at a time. */
    ExecutorService runs() {
        return runs;
    }

    boolean closing() {
        return closing;
    }

    void closing(boolean c) {
        closing = c;
    }

    /** 409's message while a run or plan is under way or the outbox is full; null when a new one may start. */
    String refuseNew(String what) {
        RunSession s = activity.current();
        if (s != null) {
            return Activity.busy(s);
        }
        int waiting = pending();
        if (waiting > 0) {
            return waiting + " messages (" + pendingBytes() + " bytes) wait in memory for disk space (" + freeSpace()
                    + "): no new " + what + " until they are stored";
        }
        if (outbox.full()) {
            return "the outbox holds " + outbox.bytes() + " bytes of undelivered messages (limit " + outbox.maxBytes()
                    + "): no new " + what + " until they are delivered";
        }
        return null;
    }

    /** Runs {@code r} on the command thread after the reply to the command under way is queued. */
    void afterReply(Runnable r) {
        afterReply = r;
    }

    Runnable takeAfterReply() {
        Runnable r = afterReply;
        afterReply = null;
        return r;
    }

    /** Queues a message that has no sequence number of its own (a reply, a replayed result). */
    void queue(String topic, byte[] payload) {
        enqueue(topic, payload, null, null);
        drainSoon();
    }

    /**
     * Queues one of a run's messages under its fixed sequence number, taken before it can be
     * published and recorded in the run's file before it leaves the outbox ({@link RunSession}).
     */
    void queueAt(RunSession s, String topic, long seq, RunMessage message) {
        queueAt(s, topic, seq, Codec.encode(message));
    }

    /** As {@link #queueAt(RunSession, String, long, RunMessage)}, the message encoded already (a result with its report). */
    void queueAt(RunSession s, String topic, long seq, byte[] payload) {
        synchronized (s) {
            enqueue(topic, payload, () -> s.queued(seq), () -> s.recordAtLeast(seq));
        }
        drainSoon();
    }

    /** A message the outbox could not take (a full disk): kept in memory, in order, until it can. */
    private record Pending(String topic, byte[] payload) {
    }

    /** The bound of {@link #pending} in bytes, without a configuration (tests): pendingMaxBytes' default. */
    static final long PENDING_MAX_BYTES = 4L * 1024 * 1024;

    private long pendingMaxBytes() {
        return config == null ? PENDING_MAX_BYTES : config.pendingMaxBytes();
    }

    /**
     * Into the outbox; when it cannot take the message (ENOSPC), or older ones still wait, into
     * {@link #pending}, in order, and tried again every second ({@link #retryPending}): a reply
     * or a run's message that could not be queued was dropped ("cannot queue message 3") and
     * never sent. A run's number is taken at once either way, so the next message gets the next.
     * {@link #pending} is bounded in bytes (pendingMaxBytes): while anything waits no new run or
     * plan starts ({@link #refuseNew}); a run's message (one with a sequence number: something
     * measured) is always kept, and past the bound the run under way is stopped so that nothing
     * more is measured that could not be stored; a message without a number (a reply, a result
     * sent again) past the bound is not kept, and the log says so: a command's reply can be asked
     * for again by its request id, a result again with {@code results}.
     */
    private synchronized void enqueue(String topic, byte[] payload, Runnable queued, Runnable leaving) {
        if (pending.isEmpty()) {
            try {
                if (queued == null) {
                    outbox.add(topic, payload);
                } else {
                    outbox.add(topic, payload, queued, leaving);
                }
                return;
            } catch (IOException e) {
                Appliance.LOG.warn("outbox: cannot store a message for {} ({}; {}): kept in memory and stored as "
                        + "soon as there is room, never dropped",
                        topic, e.getMessage(), freeSpace());
            }
        }
        long max = pendingMaxBytes();
        if (queued == null && pendingBytes + payload.length > max) {
            Appliance.LOG.warn("outbox: a message for {} ({} bytes) is not kept: {} bytes already wait in memory for "
                    + "disk space, at most {} (pendingMaxBytes of rtbox.mqtt); {}. Ask again once there is room",
                    topic, payload.length, pendingBytes, max, freeSpace());
            return;
        }
        if (queued != null) {
            // Kept in memory: the number is recorded at once (the outbox will not carry it until stored).
            queued.run();
            leaving.run();
        }
        pending.add(new Pending(topic, payload));
        pendingBytes += payload.length;
        if (queued != null && pendingBytes > max && activity.stop()) {
            Appliance.LOG.warn("outbox: {} bytes of messages wait in memory for disk space, over pendingMaxBytes "
                    + "({}); {}: the run under way is stopped, so that nothing more is measured than can be kept; "
                    + "what it measured is kept and sent",
                    pendingBytes, max, freeSpace());
        }
    }

    /** Stores what could not be stored before, oldest first, as far as there is room now. */
    void retryPending() {
        boolean stored = false;
        synchronized (this) {
            while (!pending.isEmpty()) {
                Pending p = pending.peek();
                try {
                    outbox.add(p.topic(), p.payload());
                } catch (IOException e) {
                    break;
                }
                pending.poll();
                pendingBytes -= p.payload().length;
                stored = true;
                if (pending.isEmpty()) {
                    Appliance.LOG.info("outbox: every message kept in memory for want of disk space is stored now");
                }
            }
        }
        if (stored) {
            drainSoon();
        }
    }

    /** Messages kept in memory because the disk could not take them. */
    synchronized int pending() {
        return pending.size();
    }

    /** Their payloads' bytes: at most pendingMaxBytes, beyond it only by what a run measured. */
    synchronized long pendingBytes() {
        return pendingBytes;
    }

    /** Bytes of messages a run needs room for, beside its own estimate: the replies and the status around it. */
    static final long MARGIN_BYTES = 1024 * 1024;

    /**
     * 507's message when the data folder has not room for {@code bytes} of a run's or plan's
     * messages and a margin (so it is refused up front instead of measuring what could not be
     * stored); null when it has.
     */
    String noRoomFor(String what, long bytes) {
        long need = bytes + MARGIN_BYTES;
        long free = usableSpace();
        if (free >= 0 && free < need) {
            return "the data folder " + dataDir + " has " + free + " bytes free; this " + what + " needs about " + need
                    + " for its messages: not started; free some space (or give the appliance a larger data folder)";
        }
        return null;
    }

    private long usableSpace() {
        try {
            return java.nio.file.Files.getFileStore(dataDir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private String freeSpace() {
        long free = usableSpace();
        return free < 0 ? "free space unknown" : free + " bytes free in " + dataDir;
    }

    /**
     * Queues the run's next message: numbered one past the last queued, the number taken
     * before the io thread can publish it and recorded before the message leaves the outbox,
     * so numbers never repeat or skip.
     */
    void queueNext(RunSession s, String topic, LongFunction<RunMessage> message) {
        queueNextPayload(s, topic, seq -> Codec.encode(message.apply(seq)));
    }

    /** As {@link #queueNext}, the message encoded by {@code payload}. */
    void queueNextPayload(RunSession s, String topic, LongFunction<byte[]> payload) {
        synchronized (s) {
            long seq = s.sequence() + 1;
            queueAt(s, topic, seq, payload.apply(seq));
        }
    }

    void drainSoon() {
        Link l = link;
        if (l != null && !closing) {
            l.drainSoon();
        }
    }

    /** The retained status is published again (a run started, moved on or ended). */
    void statusChanged() {
        Link l = link;
        if (l != null && !closing) {
            l.statusChanged();
        }
    }

    /**
     * Damage {@code source} (the result journal, the request log) found and skipped: carried by
     * the status from now on (at most {@link Outbox#NOTES} notes of 200 characters, then a count),
     * and the status is published again.
     */
    void damaged(String source, List<String> notes) {
        List<String> kept = new java.util.ArrayList<>();
        for (String n : notes) {
            if (kept.size() == Outbox.NOTES) {
                kept.add(source + ": " + (notes.size() - Outbox.NOTES) + " more");
                break;
            }
            kept.add(Dispatcher.cut(n, 200));
        }
        if (kept.isEmpty()) {
            damage.remove(source);
        } else {
            damage.put(source, List.copyOf(kept));
        }
        statusChanged();
    }

    /** What the status says is damaged (outbox, journal, request log); null when nothing. */
    private List<String> damaged() {
        List<String> all = new java.util.ArrayList<>(outbox.damaged());
        damage.values().forEach(all::addAll);
        return all.isEmpty() ? null : all;
    }

    private static String kernelRelease() {
        try {
            return rtbox.os.Procfs.kernel("osrelease");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    Status status(String state) {
        Instant since = Instant.ofEpochMilli(startedMs);
        if (!Status.ONLINE.equals(state)) {
            return Status.offline(appliance, Instant.now(), since);
        }
        RunSession s = activity.current();
        boolean running = s != null && s.id != null;
        boolean plan = running && s.plan();
        return new Status(appliance, Instant.now(), state, since, s != null, running ? s.id : null,
                running && !plan ? s.probe : null, plan ? s.probe : null, plan ? s.cell + 1 : null,
                plan ? s.cells : null, plan ? Math.round(s.fraction * 100) : null,
                List.copyOf(new TreeSet<>(runner.probes())), List.copyOf(new TreeSet<>(runner.workloads())),
                (long) outbox.size(), outbox.bytes(), Build.describe(), damaged(), KERNEL, PREEMPTION,
                rtbox.os.BootPartition.booted());
    }

    /**
     * Reads the marker of a run that a crash or power loss cut short, continuing after the
     * last sequence number it or the outbox shows; the marker is brought up to that number
     * on disk. Called once, at start, before the outbox drains: the messages queued before the
     * crash have no {@link RunSession#recordAtLeast} to run when they leave.
     */
    void loadInterrupted() {
        RunSession s = RunSession.load(activeFile());
        if (s == null) {
            return;
        }
        long last = s.sequence();
        try {
            for (Outbox.Entry e : outbox.all()) {
                rtbox.json.JsonFields o = rtbox.json.StrictJson.object(new String(e.payload(), StandardCharsets.UTF_8));
                if (o.has("run") && s.id.equals(o.str("run")) && o.has("sequence")) {
                    last = Math.max(last, o.lng("sequence"));
                }
            }
        } catch (IOException | RuntimeException | rtbox.json.JsonProblem e) {
            Appliance.LOG.warn("outbox: cannot read it back for run {}: {}", s.id, String.valueOf(e));
        }
        RunSession after = s.after(last);
        if (last > s.sequence()) {
            try {
                after.persist();
            } catch (IOException e) {
                Appliance.LOG.warn("cannot record run {} in {}: {}", s.id, activeFile(), e.getMessage());
            }
        }
        synchronized (this) {
            interrupted = after;
        }
    }

    /** The interrupted run of this kind ({@link RunSession#RUN} or {@link RunSession#PLAN}), taken once; or null. */
    synchronized RunSession interrupted(String kind) {
        RunSession s = interrupted;
        if (s == null || !s.kind.equals(kind)) {
            return null;
        }
        interrupted = null;
        return s;
    }
}
