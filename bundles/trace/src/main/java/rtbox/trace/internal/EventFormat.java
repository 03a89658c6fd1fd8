package rtbox.trace.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The layout of one trace event's binary record, from its tracefs {@code format} file
 * ({@code ID: 316} and {@code field:pid_t prev_pid; offset:24; size:4; signed:1;}):
 * the kernel says where each field is, so the reader needs no per-kernel table. Also
 * reads {@code events/header_page}, the layout of a ring-buffer page.
 */
final class EventFormat {
    private static final Pattern FIELD = Pattern.compile(
            "field:([^;]*?)\\s*([A-Za-z_][A-Za-z0-9_]*)(\\[\\d*\\])?;\\s*offset:(\\d+);\\s*size:(\\d+);");
    private static final Pattern ID = Pattern.compile("(?m)^ID:\\s*(\\d+)");

    final String name;
    final int id;
    private final Map<String, int[]> fields = new HashMap<>();

    private EventFormat(String name, int id) {
        this.name = name;
        this.id = id;
    }

    /** Parses a format file's text. */
    static EventFormat parse(String name, String text) throws IOException {
        Matcher m = ID.matcher(text);
        EventFormat f = new EventFormat(name, m.find() ? Integer.parseInt(m.group(1)) : -1);
        Matcher fm = FIELD.matcher(text);
        while (fm.find()) {
            f.fields.put(fm.group(2), new int[] {Integer.parseInt(fm.group(4)), Integer.parseInt(fm.group(5))});
        }
        return f;
    }

    static EventFormat read(Path file, String name) throws IOException {
        return parse(name, TraceFs.text(file));
    }

    /** The field's offset in the record. */
    int offset(String field) throws IOException {
        return field(field)[0];
    }

    int size(String field) throws IOException {
        return field(field)[1];
    }

    boolean has(String field) {
        return fields.containsKey(field);
    }

    private int[] field(String field) throws IOException {
        int[] f = fields.get(field);
        if (f == null) {
            throw new IOException("the " + name + " event has no field '" + field + "' in this kernel");
        }
        return f;
    }
}
