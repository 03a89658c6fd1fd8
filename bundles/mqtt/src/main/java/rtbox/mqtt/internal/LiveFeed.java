package rtbox.mqtt.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import rtbox.api.LiveThread;
import rtbox.mqtt.protocol.Live;
import rtbox.mqtt.protocol.LiveCodec;
import rtbox.mqtt.protocol.LiveLine;
import rtbox.mqtt.protocol.Topics;

/**
 * The live figures of the run under way, every {@code liveIntervalMillis} on the command
 * thread: it reads what the measuring threads publish anyway ({@link LiveThread}: release
 * stores of count, min, last, max, sum; no lock, no allocation, no call in their loop) and
 * hands one message to the {@link Link}, which sends it at QoS 0, outside the outbox: a live
 * figure lost is replaced by the next one, and the results stay QoS 1 and lossless.
 */
final class LiveFeed {
    private final Station station;

    LiveFeed(Station station) {
        this.station = station;
    }

    /** One live message of the run under way, if any. */
    void tick(Link link) {
        RunSession s = station.activity().current();
        if (s == null || s.id == null || link == null) {
            return;
        }
        link.publishLive(Topics.live(station.appliance()), LiveCodec.encode(live(station.appliance(), s)));
    }

    static Live live(String appliance, RunSession s) {
        LiveThread[] threads = s.live();
        List<LiveLine> lines = new ArrayList<>(threads.length);
        for (LiveThread t : threads) {
            lines.add(line(t));
        }
        long percent = Math.max(0, Math.min(100, (long) Math.floor(s.fraction * 100)));
        if (s.plan()) {
            return new Live(appliance, Instant.now(), s.id, null, s.probe, s.cell + 1, s.cells, s.cellName, percent,
                    lines);
        }
        return new Live(appliance, Instant.now(), s.id, s.probe, null, null, null, null, percent, lines);
    }

    /** A thread's figures so far; they may be a sample apart from each other (LiveThread), never torn. */
    static LiveLine line(LiveThread t) {
        long n = t.cycles();
        long sum = t.sumNs();
        double avg = n > 0 ? sum / (double) n / 1000.0 : Double.NaN;
        return new LiveLine(t.thread(), t.cpu(), n, n > 0 ? t.minNs() / 1000.0 : 0, t.lastNs() / 1000.0, avg,
                t.maxNs() / 1000.0);
    }
}
