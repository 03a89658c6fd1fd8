package rtbox.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import rtbox.api.RtboxException;

/**
 * A workload asked for in a run: its name and parameters, as written on the command
 * line ({@code pipe:mode=rtt,count=100000}).
 */
public record LoadSpec(String name, Map<String, String> parameters) {
    public LoadSpec {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** Parses {@code name[:k=v,k=v...]}. */
    public static LoadSpec parse(String text) throws RtboxException {
        String t = text == null ? "" : text.trim();
        int colon = t.indexOf(':');
        String name = colon < 0 ? t : t.substring(0, colon).trim();
        if (name.isEmpty()) {
            throw new RtboxException("load", "load '" + text + "' names no workload: write NAME[:KEY=VALUE,...]");
        }
        Map<String, String> p = new LinkedHashMap<>();
        if (colon >= 0) {
            for (String kv : t.substring(colon + 1).split(",")) {
                if (kv.isBlank()) {
                    continue;
                }
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new RtboxException("load", "in load '" + text + "': '" + kv + "' is not KEY=VALUE");
                }
                p.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return new LoadSpec(name, p);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(name);
        char sep = ':';
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            b.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = ',';
        }
        return b.toString();
    }
}
