package rtbox.control.internal;

import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArraySet;

import com.google.gson.JsonObject;

/**
 * Live updates for the Server-Sent Events stream: each subscriber has a bounded queue;
 * one that does not keep up loses its oldest events (and reloads the state when told),
 * it never slows the ingest down.
 */
final class Events {
    /** One event: its SSE name, its JSON, and the appliance and run it is about (for filters). */
    record Event(String name, String appliance, String run, String data) {
    }

    static final class Subscriber {
        final BlockingQueue<Event> queue = new ArrayBlockingQueue<>(1000);
        final Set<String> appliances;
        final String run;
        final boolean admin;
        volatile boolean overflowed;

        Subscriber(Set<String> appliances, String run, boolean admin) {
            this.appliances = appliances;
            this.run = run;
            this.admin = admin;
        }

        void offer(Event e) {
            if (e.name().equals("rejected") && !admin) {
                return;
            }
            if (e.appliance() != null && appliances != null && !appliances.contains(e.appliance())) {
                return;
            }
            if (run != null && e.run() != null && !run.equals(e.run())) {
                return;
            }
            while (!queue.offer(e)) {
                queue.poll();
                overflowed = true;
            }
        }
    }

    private final Set<Subscriber> subscribers = new CopyOnWriteArraySet<>();

    Subscriber subscribe(Set<String> appliances, String run, boolean admin) {
        Subscriber s = new Subscriber(appliances, run, admin);
        subscribers.add(s);
        return s;
    }

    void unsubscribe(Subscriber s) {
        subscribers.remove(s);
    }

    int subscribers() {
        return subscribers.size();
    }

    void publish(Inbound m) {
        if (subscribers.isEmpty()) {
            return;
        }
        JsonObject j = m.json();
        JsonObject d = new JsonObject();
        d.addProperty("appliance", m.appliance());
        switch (m.kind()) {
            case STATUS -> {
                for (String f : new String[] {"state", "busy", "run", "plan", "cell", "cells", "cell_percent", "probe",
                        "since", "outbox_messages"}) {
                    if (j.has(f)) {
                        d.add(f, j.get(f));
                    }
                }
                if ("online".equals(Json.string(j, "state")) && j.has("busy") && j.get("busy").getAsBoolean()) {
                    d.addProperty("state", "busy");
                }
                d.addProperty("last_seen", java.time.Instant.now().toString());
            }
            case REPLY -> {
                d.addProperty("requestId", m.requestId());
                for (String f : new String[] {"verb", "code", "message"}) {
                    d.add(f, j.get(f));
                }
            }
            default -> {
                d.addProperty("run", m.run());
                d.addProperty("sequence", m.sequence());
                for (String f : new String[] {"kind", "plan", "cell", "cells", "cell_name", "percent", "probe",
                        "verdict", "reason", "state", "max_us", "p99_us", "p999_us", "missed_deadlines"}) {
                    if (j.has(f)) {
                        d.add(f, j.get(f));
                    }
                }
                if (j.has("cell_name")) {
                    d.add("name", j.get("cell_name"));
                }
            }
        }
        send(new Event(m.kind().type(), m.appliance(), m.run(), Json.GSON.toJson(d)));
    }

    void rejected(JsonObject r) {
        send(new Event("rejected", null, null, Json.GSON.toJson(r)));
    }

    void send(Event e) {
        for (Subscriber s : subscribers) {
            s.offer(e);
        }
    }
}
