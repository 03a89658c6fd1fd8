package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import rtbox.os.DurableFile;

/**
 * A {@code set-config} of rtbox.mqtt on trial: the appliance's own line to the broker must
 * not be cut by a command (an unreachable broker set remotely left it offline for good). The
 * command's appliance writes this file, then applies the new settings; Config Admin
 * restarts the appliance with them. That appliance answers the command when it connects; if
 * it does not within the timeout, it puts the previous settings back, and the appliance
 * they start answers that the change was rolled back, and why.
 *
 * <p>File {@code config.trial} in the data folder, 0600 (the previous settings may hold a
 * password): JSON with the request id, the state ({@code trying} or {@code rolled back}),
 * the keys set, the timeout, the previous properties and, once rolled back, the reason.
 * A crash during the trial leaves the file: the next start tries again, with a new timeout.
 */
final class ConfigTrial {
    static final String FILE = "config.trial";
    static final String TRYING = "trying", ROLLED_BACK = "rolled back";

    final String requestId;
    final String state;
    final List<String> keys;
    final int timeoutSeconds;
    final JsonObject previous;
    final String reason;

    private ConfigTrial(String requestId, String state, List<String> keys, int timeoutSeconds, JsonObject previous,
            String reason) {
        this.requestId = requestId;
        this.state = state;
        this.keys = keys;
        this.timeoutSeconds = timeoutSeconds;
        this.previous = previous;
        this.reason = reason;
    }

    /** Records a trial before the new settings are applied. */
    static void begin(Path dataDir, String requestId, List<String> keys, int timeoutSeconds,
            Dictionary<String, Object> previous) throws IOException {
        new ConfigTrial(requestId, TRYING, keys, timeoutSeconds, json(previous), null).write(dataDir);
    }

    /** The same trial, failed: the previous settings go back. */
    void rolledBack(Path dataDir, String why) throws IOException {
        new ConfigTrial(requestId, ROLLED_BACK, keys, timeoutSeconds, previous, why).write(dataDir);
    }

    boolean trying() {
        return TRYING.equals(state);
    }

    /** The trial under way in {@code dataDir}, or null; a file that does not read is removed. */
    static ConfigTrial read(Path dataDir) {
        Path f = dataDir.resolve(FILE);
        if (!Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try {
            if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) || Files.size(f) > 1024 * 1024) {
                throw new IOException(Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "over 1 MiB"
                        : Outbox.kind(f) + ", not a file");
            }
            rtbox.json.JsonFields o = rtbox.json.StrictJson.object(Files.readString(f, StandardCharsets.UTF_8));
            List<String> keys = o.strings("keys");
            JsonObject previous = o.obj("previous").object();
            for (Map.Entry<String, JsonElement> e : previous.entrySet()) {
                property(e.getValue(), "$.previous." + e.getKey()); // a value that would not go back is a file that does not read
            }
            return new ConfigTrial(o.str("requestId"), o.str("state"), keys, o.integer("timeoutSeconds"), previous,
                    o.optStr("reason"));
        } catch (IOException | RuntimeException | rtbox.json.JsonProblem e) {
            Appliance.LOG.warn("{} (a set-config of rtbox.mqtt on trial) does not read back ({}): removed; the "
                    + "settings stay as they are",
                    f, String.valueOf(e));
            clear(dataDir);
            return null;
        }
    }

    static void clear(Path dataDir) {
        try {
            Files.deleteIfExists(dataDir.resolve(FILE));
        } catch (IOException e) {
            Appliance.LOG.warn("cannot remove {}: {}", dataDir.resolve(FILE), e.getMessage());
        }
    }

    /** The previous properties, as Config Admin takes them. */
    Dictionary<String, Object> previousProperties() {
        Dictionary<String, Object> d = new Hashtable<>();
        for (Map.Entry<String, JsonElement> e : previous.entrySet()) {
            JsonElement v = e.getValue();
            if (v.isJsonArray()) {
                JsonArray a = v.getAsJsonArray();
                String[] s = new String[a.size()];
                for (int i = 0; i < s.length; i++) {
                    s[i] = a.get(i).getAsString();
                }
                d.put(e.getKey(), s);
            } else {
                try {
                    d.put(e.getKey(), property(v, "$.previous." + e.getKey()));
                } catch (rtbox.json.JsonProblem p) {
                    throw new IllegalStateException(p.getMessage()); // checked by read()
                }
            }
        }
        return d;
    }

    /**
     * A previous property's value as Config Admin had it: a whole number as a Long, any other
     * number as a Double (exactly as written: a Double setting was written as its long, 2.5 as 2,
     * before issue 33), a boolean, a string.
     */
    private static Object property(JsonElement v, String path) throws rtbox.json.JsonProblem {
        if (v.isJsonArray()) {
            return null;
        }
        if (!v.isJsonPrimitive()) {
            throw new rtbox.json.JsonProblem(path, "expected a string, number or boolean, got "
                    + rtbox.json.StrictJson.show(v));
        }
        JsonPrimitive p = v.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return p.getAsBoolean();
        }
        if (!p.isNumber()) {
            return p.getAsString();
        }
        java.math.BigDecimal d = rtbox.json.JsonFields.decimal(v, path);
        try {
            return d.longValueExact();
        } catch (ArithmeticException notWhole) {
            return d.doubleValue();
        }
    }

    private void write(Path dataDir) throws IOException {
        JsonObject o = new JsonObject();
        o.addProperty("requestId", requestId);
        o.addProperty("state", state);
        JsonArray k = new JsonArray();
        keys.forEach(k::add);
        o.add("keys", k);
        o.addProperty("timeoutSeconds", timeoutSeconds);
        o.add("previous", previous);
        if (reason != null) {
            o.addProperty("reason", reason);
        }
        Path f = dataDir.resolve(FILE);
        Path tmp = dataDir.resolve(FILE + ".tmp");
        Files.deleteIfExists(tmp);
        // Created 0600 before a byte is written: the previous settings may hold a password.
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, o.toString().getBytes(StandardCharsets.UTF_8));
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(tmp,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        DurableFile.syncFolder(dataDir);
    }

    private static JsonObject json(Dictionary<String, Object> d) {
        JsonObject o = new JsonObject();
        for (Enumeration<String> keys = d.keys(); keys.hasMoreElements();) {
            String k = keys.nextElement();
            if (k.equals("service.pid") || k.equals("service.factoryPid") || k.equals("service.bundleLocation")) {
                continue;
            }
            Object v = d.get(k);
            if (v instanceof String[] a) {
                JsonArray arr = new JsonArray();
                for (String s : a) {
                    arr.add(s);
                }
                o.add(k, arr);
            } else if (v instanceof Boolean b) {
                o.addProperty(k, b);
            } else if (v instanceof Float || v instanceof Double) {
                o.addProperty(k, ((Number) v).doubleValue()); // as it is: n.longValue() wrote 2.5 as 2
            } else if (v instanceof Number n) {
                o.addProperty(k, n.longValue());
            } else if (v != null) {
                o.addProperty(k, v.toString());
            }
        }
        return o;
    }
}
