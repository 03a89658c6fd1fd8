package rtbox.mqtt.internal;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeService;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import rtbox.api.RtboxException;
import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * get-config and set-config: a component's configuration by PID. Values whose key
 * names a password or secret are never sent back. A set merges the given keys into
 * the configuration Config Admin holds (it is not written back into etc/). Only rtbox's
 * own described PIDs and properties ({@link ConfigAllowList}); the appliance's identity
 * ({@link #IDENTITY}) is set on the appliance only.
 */
final class ConfigCommands {
    /**
     * rtbox.mqtt's keys that make the appliance another client at the broker. Set remotely,
     * the trial connected (mosquitto takes a client whose id its ACL does not grant, and
     * silently drops what it publishes), nothing rolled back, and the appliance was out of
     * reach for good (issue 31: {@code "appliance":"rel9"}).
     */
    static final Set<String> IDENTITY = Set.of("appliance", "username", "tlsKeyStore");

    private final Supplier<ConfigurationAdmin> admin;
    private final Supplier<MetaTypeService> metatype;
    private final Supplier<BundleContext> context;

    ConfigCommands(Supplier<ConfigurationAdmin> admin, Supplier<MetaTypeService> metatype,
            Supplier<BundleContext> context) {
        this.admin = admin;
        this.metatype = metatype;
        this.context = context;
    }

    /** The properties {@code pid} may hold with their metatype types, or null with {@link #lastError} set when it is not rtbox's. */
    private Map<String, Integer> allowed(String pid) {
        MetaTypeService mts = metatype.get();
        BundleContext ctx = context.get();
        if (mts == null || ctx == null) {
            lastError = Reply.failed("the metatype service is not running on this appliance: without it the"
                    + " appliance cannot tell which configurations are its own, so none is read or set");
            return null;
        }
        Map<String, Integer> keys = ConfigAllowList.types(ctx, mts, pid);
        if (keys == null) {
            lastError = Reply.notFound("pid '" + Dispatcher.cut(pid, 80) + "' is not one of rtbox's configurations: "
                    + String.join(", ", ConfigAllowList.pids(ctx, mts)));
        }
        return keys;
    }

    private Reply lastError;

    Reply get(JsonObject c) throws RtboxException {
        ConfigurationAdmin ca = admin.get();
        if (ca == null) {
            return Reply.failed("Config Admin is not running on this appliance");
        }
        String pid = pid(c);
        if (pid == null) {
            return Reply.bad("pid is missing: give the configuration's PID, e.g. \"pid\": \"rtbox.mqtt\"");
        }
        if (allowed(pid) == null) {
            return lastError;
        }
        Configuration cfg = existing(ca, pid);
        if (cfg == null) {
            return Reply.notFound("no configuration with PID '" + pid + "'");
        }
        JsonObject body = new JsonObject();
        body.addProperty("pid", pid);
        body.add("properties", json(cfg.getProperties()));
        return Reply.ok("configuration " + pid, body);
    }

    /** What may hold back a set's reply, told the configuration before it changes. */
    interface BeforeUpdate {
        /** Null to answer at once when the update is done, or the reply to give instead ({@link Reply#LATER}). */
        Reply before(String pid, Dictionary<String, Object> previous, java.util.List<String> keys) throws IOException;
    }

    Reply set(JsonObject c) throws RtboxException {
        return set(c, (pid, previous, keys) -> null);
    }

    Reply set(JsonObject c, BeforeUpdate hook) throws RtboxException {
        ConfigurationAdmin ca = admin.get();
        if (ca == null) {
            return Reply.failed("Config Admin is not running on this appliance");
        }
        String pid = pid(c);
        if (pid == null) {
            return Reply.bad("pid is missing: give the configuration's PID");
        }
        JsonObject props = RunJson.object(c, "properties");
        if (props.size() == 0) {
            return Reply.bad("properties is missing or empty: give the keys to set, e.g. {\"keepAliveSeconds\": 20}");
        }
        for (Map.Entry<String, JsonElement> e : props.entrySet()) {
            String k = e.getKey();
            if (k.startsWith("service.") || k.startsWith("felix.") || k.startsWith("component.")) {
                return Reply.bad("property " + Dispatcher.cut(k, 80) + " belongs to the framework and cannot be set");
            }
            value(k, e.getValue());
        }
        Map<String, Integer> types = allowed(pid);
        if (types == null) {
            return lastError;
        }
        Set<String> allowed = types.keySet();
        for (String k : props.keySet()) {
            if (ConfigVerbs.MQTT.equals(pid) && IDENTITY.contains(k)) {
                return Reply.bad("property " + k + " of " + pid + " is the appliance's identity at the broker: it is"
                        + " set on the appliance only (etc/" + pid + ".cfg), never over MQTT, which it would cut off");
            }
            if (!allowed.contains(k)) {
                return Reply.bad("property " + Dispatcher.cut(k, 80) + " is not one of " + pid + "'s: "
                        + String.join(", ", allowed));
            }
            typed(k, props.get(k), types.get(k));
        }
        try {
            Configuration cfg = existing(ca, pid);
            if (cfg == null) {
                cfg = ca.getConfiguration(pid, "?");
            }
            Dictionary<String, Object> d = cfg.getProperties() == null ? new Hashtable<>() : cfg.getProperties();
            Dictionary<String, Object> previous = cfg.getProperties();
            for (Map.Entry<String, JsonElement> e : props.entrySet()) {
                String k = e.getKey();
                Object v = typed(k, e.getValue(), types.get(k));
                if (v == null) {
                    d.remove(k);
                } else {
                    d.put(k, v);
                }
            }
            if (previous != null && same(previous, d)) {
                // Config Admin would change nothing, so nothing would restart to answer later.
                JsonObject body = new JsonObject();
                body.addProperty("pid", pid);
                body.add("properties", json(d));
                return Reply.ok("configuration " + pid + " unchanged: " + String.join(", ", props.keySet())
                        + " already had those values", body);
            }
            Reply later = previous == null ? null
                    : hook.before(pid, previous, new java.util.ArrayList<>(props.keySet()));
            cfg.update(d);
            if (later != null) {
                return later;
            }
            JsonObject body = new JsonObject();
            body.addProperty("pid", pid);
            body.add("properties", json(d));
            return Reply.ok("configuration " + pid + " updated: " + String.join(", ", props.keySet()), body);
        } catch (IOException e) {
            Appliance.LOG.warn("Config Admin could not store {}: {}", pid, e.toString());
            return Reply.failed("Config Admin could not store " + pid + " (the appliance's log says why)");
        }
    }

    private static boolean same(Dictionary<String, Object> a, Dictionary<String, Object> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Enumeration<String> keys = a.keys(); keys.hasMoreElements();) {
            String k = keys.nextElement();
            if (!java.util.Objects.deepEquals(a.get(k), b.get(k))) {
                return false;
            }
        }
        return true;
    }

    private static String pid(JsonObject c) throws RtboxException {
        String pid = RunJson.string(c, "pid", null);
        return pid == null || pid.isBlank() ? null : pid.trim();
    }

    private static Configuration existing(ConfigurationAdmin ca, String pid) {
        try {
            Configuration[] found = ca.listConfigurations("(service.pid=" + pid.replaceAll("([\\\\()*])", "\\\\$1")
                    + ")");
            return found == null || found.length == 0 ? null : found[0];
        } catch (IOException | InvalidSyntaxException e) {
            return null;
        }
    }

    private static Object value(String key, JsonElement e) throws RtboxException {
        if (e.isJsonNull()) {
            return null;
        }
        if (e.isJsonPrimitive()) {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isBoolean()) {
                return p.getAsBoolean();
            }
            if (p.isNumber()) {
                // Exactly as written: 9007199254740993 went through a double before (and was rounded).
                java.math.BigDecimal d = decimal(key, e);
                try {
                    return d.longValueExact();
                } catch (ArithmeticException notWhole) {
                    return d.doubleValue();
                }
            }
            return p.getAsString();
        }
        if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            String[] s = new String[a.size()];
            for (int i = 0; i < s.length; i++) {
                if (!a.get(i).isJsonPrimitive()) {
                    throw new RtboxException(key, "properties." + key + ": arrays may hold only strings and numbers");
                }
                s[i] = a.get(i).getAsString();
            }
            return s;
        }
        throw new RtboxException(key, "properties." + key + " is an object: give a string, number, boolean or array");
    }

    /**
     * {@link #value}, and a number for a property that metatype says is whole (INTEGER, LONG,
     * SHORT, BYTE) must be one, exactly and within the type: {@code "keepAliveSeconds": 2.5} was
     * stored as 2.5 and read by the component as 2 (SCR's conversion cuts), 3000000000 as an int
     * was another number. An INTEGER is stored as an Integer, a LONG as a Long.
     */
    private static Object typed(String key, JsonElement e, Integer type) throws RtboxException {
        Object v = value(key, e);
        if (!(v instanceof Number) || type == null) {
            return v;
        }
        long min, max;
        switch (type) {
            case AttributeDefinition.INTEGER -> { min = Integer.MIN_VALUE; max = Integer.MAX_VALUE; }
            case AttributeDefinition.SHORT -> { min = Short.MIN_VALUE; max = Short.MAX_VALUE; }
            case AttributeDefinition.BYTE -> { min = Byte.MIN_VALUE; max = Byte.MAX_VALUE; }
            case AttributeDefinition.LONG -> { min = Long.MIN_VALUE; max = Long.MAX_VALUE; }
            default -> {
                return v;
            }
        }
        long w;
        try {
            w = JsonFields.whole(e, "$.properties." + key, min, max);
        } catch (JsonProblem p) {
            throw new RtboxException(key, p.getMessage());
        }
        return switch (type) {
            case AttributeDefinition.INTEGER -> (Object) (int) w;
            case AttributeDefinition.SHORT -> (Object) (short) w;
            case AttributeDefinition.BYTE -> (Object) (byte) w;
            default -> (Object) w;
        };
    }

    private static java.math.BigDecimal decimal(String key, JsonElement e) throws RtboxException {
        try {
            return JsonFields.decimal(e, "$.properties." + key);
        } catch (JsonProblem p) {
            throw new RtboxException(key, p.getMessage());
        }
    }

    private static JsonObject json(Dictionary<String, Object> d) {
        JsonObject o = new JsonObject();
        if (d == null) {
            return o;
        }
        for (Enumeration<String> keys = d.keys(); keys.hasMoreElements();) {
            String k = keys.nextElement();
            String lower = k.toLowerCase(Locale.ROOT);
            if (lower.contains("password") || lower.contains("secret")) {
                o.addProperty(k, "********");
            } else {
                o.add(k, Payloads.GSON.toJsonTree(d.get(k)));
            }
        }
        return o;
    }
}
