package rtbox.control.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.mqtt.protocol.Topics;

/**
 * Which appliances the control room knows on sight, so that the ingest registers them as it
 * first hears of them; any other lands unregistered until an admin accepts it (issue 31: an
 * authenticated but unknown appliance user made a fleet entry with a fake PASS run).
 *
 * <p>Known on sight: with the embedded broker, every appliance (it binds 127.0.0.1 and has one
 * generated password in a 0600 file: whoever connects is the control room's own user); with a
 * site broker, the appliances that {@code appliancesFile} names, one id a line, or as
 * {@code ID:...}, so that the appliance listener's mosquitto password file (or a copy of it)
 * serves; the control room's own user name and lines starting with {@code #} are skipped. The
 * file is read again when it changes (looked at no more than every 5 s).
 */
final class Registry {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.registry");
    /** A run's appliance counts (SQL on a table with column appliance): an unregistered one's runs do not. */
    static final String COUNTS = "appliance IN (SELECT id FROM appliance WHERE registered)";
    private static final long LOOK_EVERY_MS = 5_000;
    private final boolean everyone;
    private final Path file;
    private final String controlUser;
    private volatile Set<String> listed = Set.of();
    private FileTime read;
    private long lookedMs; // 0: never (epoch milliseconds are far past it)

    Registry(boolean everyone, Path file, String controlUser) {
        this.everyone = everyone;
        this.file = file;
        this.controlUser = controlUser;
        if (file != null) {
            reread(System.currentTimeMillis());
        }
    }

    /** Every appliance known on sight: the ingest from a job's folder and tests. */
    static Registry everyone() {
        return new Registry(true, null, null);
    }

    boolean knows(String appliance) {
        if (everyone) {
            return true;
        }
        if (file != null) {
            reread(System.currentTimeMillis());
        }
        return listed.contains(appliance);
    }

    /** How the control room knows its appliances, for the log at start. */
    String describe() {
        return everyone ? "every appliance of the embedded broker is registered on sight"
                : file == null ? "no appliancesFile: each new appliance lands unregistered until an admin accepts it"
                        : listed.size() + " appliances named by " + file + " are registered on sight; any other lands"
                                + " unregistered until an admin accepts it";
    }

    private synchronized void reread(long nowMs) {
        if (nowMs - lookedMs < LOOK_EVERY_MS) {
            return;
        }
        lookedMs = nowMs;
        try {
            FileTime t = Files.getLastModifiedTime(file);
            if (t.equals(read)) {
                return;
            }
            listed = parse(Files.readAllLines(file), controlUser);
            read = t;
        } catch (IOException e) {
            LOG.warn("cannot read appliancesFile {} ({}): the appliances it named before stay known", file,
                    e.getMessage());
        }
    }

    /** Adds an appliance row's registered, registered_by and registered_at to {@code o}; returns registered. */
    static boolean addRegistration(com.google.gson.JsonObject o, java.sql.ResultSet rs) throws java.sql.SQLException {
        boolean registered = rs.getBoolean("registered");
        o.addProperty("registered", registered);
        o.addProperty("registered_by", rs.getString("registered_by"));
        o.addProperty("registered_at", Json.iso(Sql.longOrNull(rs, "registered_ms")));
        return registered;
    }

    /** The ids a file names: {@code ID} or {@code ID:...} a line; blank lines, comments and bad ids skipped. */
    static Set<String> parse(List<String> lines, String controlUser) {
        Set<String> ids = new HashSet<>();
        for (String l : lines) {
            String s = l.strip();
            if (s.isEmpty() || s.startsWith("#")) {
                continue;
            }
            int colon = s.indexOf(':');
            String id = colon < 0 ? s : s.substring(0, colon);
            if (!id.equals(controlUser) && Topics.checkId("appliance", id) == null) {
                ids.add(id);
            }
        }
        return Set.copyOf(ids);
    }
}
