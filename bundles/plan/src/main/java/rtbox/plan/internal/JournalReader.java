package rtbox.plan.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.reflect.TypeToken;

import rtbox.api.result.Verdict;
import rtbox.json.JsonProblem;
import rtbox.json.ModelJson;
import rtbox.json.StrictJson;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;
import rtbox.plan.Plans;

/**
 * Puts plan runs back together from journal records (plan, cell..., end), read as the project
 * reads its own JSON (rtbox.json: strict, numbers exact). A record written before the journal
 * stopped writing NaN (as null, since issue 33) is read with its NaN and infinities as null.
 */
final class JournalReader {
    private JournalReader() {
    }

    private static final class Building {
        JsonObject head;
        final List<CellResult> cells = new ArrayList<>();
        JsonObject end;
    }

    /**
     * The journal read as a stream: each record parsed as it is read, so that the raw text of
     * the whole journal is never held beside the runs made of it (a 25 MB journal left
     * {@code results} without a reply on the 48 MB heap).
     */
    static Plans.History history(rtbox.os.AppendLog journal) throws java.io.IOException {
        Map<String, Building> runs = new LinkedHashMap<>();
        List<String> skipped = read(journal, record -> true, building(runs));
        return history(runs, skipped, journal.path().toString());
    }

    /**
     * What {@link #history(rtbox.os.AppendLog)} would skip as damaged, read as a stream that
     * keeps only the runs' ids (not their cells): cheap enough for every start.
     */
    static List<String> damaged(rtbox.os.AppendLog journal) throws java.io.IOException {
        java.util.Set<String> heads = new java.util.HashSet<>();
        java.util.Set<String> withCells = new java.util.LinkedHashSet<>();
        List<String> skipped = read(journal, record -> true, (type, id, o) -> {
            switch (type) {
                case "plan": heads.add(id); return true;
                case "cell": withCells.add(id); return true;
                case "end": return true;
                default: return false;
            }
        });
        for (String id : withCells) {
            if (!heads.contains(id)) {
                skipped.add("run " + id + ": cells without the plan record; skipped");
            }
        }
        return skipped;
    }

    /**
     * Every run in brief, read as a stream that keeps of each run what its summary needs (for a
     * run without its end record, each cell's name and verdict), never the cells' reports.
     */
    static Plans.Page page(rtbox.os.AppendLog journal, String before, int limit) throws java.io.IOException {
        Map<String, Building> runs = new LinkedHashMap<>();
        List<String> skipped = read(journal, record -> true, (type, id, o) -> {
            Building b = runs.computeIfAbsent(id, k -> new Building());
            switch (type) {
                case "plan":
                    o.remove("planText"); // a summary has no use for it
                    b.head = o;
                    return true;
                case "cell":
                    b.cells.add(brief(model(o.get("cell"), CellResult.class, "$.cell")));
                    return true;
                case "end": b.end = o; return true;
                default: return false;
            }
        });
        Plans.History h = history(runs, skipped, journal.path().toString());
        return Plans.Page.of(h.runs().stream().map(Plans.Summary::of).toList(), before, limit, h.damaged(),
                h.journal());
    }

    /** A cell without its report, what the run's verdict needs. */
    private static CellResult brief(CellResult c) {
        return new CellResult(c.index(), c.name(), Map.of(), c.probe(), c.policy(), List.of(), Map.of(),
                c.startedEpochMs(), c.endedEpochMs(), null, c.verdict(), null);
    }

    /** The run {@code id} in full, or null: a stream that builds that run only. */
    static PlanRun run(rtbox.os.AppendLog journal, String id) throws java.io.IOException {
        Map<String, Building> runs = new LinkedHashMap<>();
        List<String> skipped = read(journal, record -> id.equals(id(record)), building(runs));
        List<PlanRun> found = history(runs, skipped, journal.path().toString()).runs();
        return found.isEmpty() ? null : found.get(0);
    }

    /**
     * Each run's share of the journal in bytes (its records' lengths), oldest first, read as a
     * stream of ids.
     */
    static Map<String, Long> sizes(rtbox.os.AppendLog journal) throws java.io.IOException {
        Map<String, Long> sizes = new LinkedHashMap<>();
        journal.read(record -> {
            String id = id(record);
            if (id != null) {
                sizes.merge(id, (long) record.length() + 20, Long::sum);
            }
        });
        return sizes;
    }

    /**
     * A record's run id, or null when it is not a journal record: read with a streaming reader up
     * to the id, which every record has before its cell, so a cell's report is not parsed.
     */
    static String id(String record) {
        try (com.google.gson.stream.JsonReader r = new com.google.gson.stream.JsonReader(
                new java.io.StringReader(record))) {
            r.beginObject();
            while (r.hasNext()) {
                if (r.nextName().equals("id")) {
                    return r.peek() == com.google.gson.stream.JsonToken.STRING ? r.nextString() : null;
                }
                r.skipValue();
            }
            return null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** A sink that puts whole runs together (plan, cells, end), each run by its id. */
    private static RecordSink building(Map<String, Building> runs) {
        return (type, id, o) -> {
            Building b = runs.computeIfAbsent(id, k -> new Building());
            switch (type) {
                case "plan": b.head = o; return true;
                case "cell": b.cells.add(model(o.get("cell"), CellResult.class, "$.cell")); return true;
                case "end": b.end = o; return true;
                default: return false;
            }
        };
    }

    /** What a reader keeps of one parsed record; false for a type it does not know. */
    @FunctionalInterface
    private interface RecordSink {
        boolean take(String type, String id, JsonObject record);
    }

    /**
     * The journal as a stream of parsed records, each handed to {@code sink}: one frame for every
     * reader, so that each names a record it cannot use in the same words; {@code wanted} picks raw
     * records before they are parsed (one run's, by id). Returns what was
     * skipped (damaged lines, records that are not journal records, unknown types).
     */
    private static List<String> read(rtbox.os.AppendLog journal, java.util.function.Predicate<String> wanted,
            RecordSink sink) throws java.io.IOException {
        List<String> damaged = new ArrayList<>();
        List<String> skipped = journal.read(record -> {
            if (!wanted.test(record)) {
                return;
            }
            try {
                JsonObject o = parse(record).getAsJsonObject();
                String type = o.get("type").getAsString();
                String id = o.get("id").getAsString();
                if (!sink.take(type, id, o)) {
                    damaged.add("a record of unknown type '" + type + "' (run " + id + ")");
                }
            } catch (JsonProblem e) {
                damaged.add("a record that is whole but not valid JSON: " + e.getMessage());
            } catch (RuntimeException e) {
                damaged.add("a record that is whole but not a journal record: " + e.getMessage());
            }
        });
        skipped.addAll(damaged);
        return skipped;
    }

    /**
     * One record's text as a tree, strictly. A record an older rtbox wrote with NaN or an
     * infinity (Gson's lenient output, before issue 33) is read again with those as null, what
     * the journal writes for them now, so that no older run is lost as damaged.
     */
    static JsonElement parse(String record) throws JsonProblem {
        try {
            return StrictJson.parse(record);
        } catch (JsonProblem e) {
            String older = nonFiniteAsNull(record);
            if (older == null) {
                throw e;
            }
            return StrictJson.parse(older);
        }
    }

    /** {@code text} with NaN, Infinity and -Infinity outside strings as null; null when it has none. */
    static String nonFiniteAsNull(String text) {
        StringBuilder out = new StringBuilder(text.length());
        boolean inString = false, changed = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString) {
                out.append(c);
                if (c == '\\' && i + 1 < text.length()) {
                    out.append(text.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            String token = c == '"' ? null : text.startsWith("NaN", i) ? "NaN" : text.startsWith("Infinity", i)
                    ? "Infinity" : text.startsWith("-Infinity", i) ? "-Infinity" : null;
            if (token != null) {
                out.append("null");
                i += token.length() - 1;
                changed = true;
            } else {
                inString = c == '"';
                out.append(c);
            }
        }
        return changed ? out.toString() : null;
    }

    /** A model value (a cell, a verdict, the cell names) from its record's tree, read strictly by ModelJson. */
    private static <T> T model(JsonElement e, java.lang.reflect.Type type, String path) {
        if (e == null) {
            throw new IllegalArgumentException(path + ": missing");
        }
        try {
            return ModelJson.read(PlanService.LINE, e, type);
        } catch (JsonProblem p) {
            throw new IllegalArgumentException(path + p.path().substring(1) + ": " + p.problem());
        }
    }

    /** A whole number of a record, exactly (rtbox.json: never rounded). */
    private static long whole(JsonObject o, String key) {
        try {
            return rtbox.json.JsonFields.whole(o.get(key), "$." + key);
        } catch (JsonProblem p) {
            throw new IllegalArgumentException(p.getMessage());
        }
    }

    private static Plans.History history(Map<String, Building> runs, List<String> damaged, String path) {
        List<PlanRun> out = new ArrayList<>();
        for (Map.Entry<String, Building> e : runs.entrySet()) {
            Building b = e.getValue();
            if (b.head == null) {
                damaged.add("run " + e.getKey() + ": cells without the plan record; skipped");
                continue;
            }
            JsonObject h = b.head;
            int planned = (int) whole(h, "cellsPlanned");
            List<String> names = model(h.get("cellNames"), new TypeToken<List<String>>() { }.getType(),
                    "$.cellNames");
            String state = b.end == null ? PlanRun.INTERRUPTED : b.end.get("state").getAsString();
            Verdict v = b.end == null ? Verdicts.overall(b.cells, planned, state)
                    : model(b.end.get("verdict"), Verdict.class, "$.verdict");
            long ended = b.end == null ? (b.cells.isEmpty() ? whole(h, "started")
                    : b.cells.get(b.cells.size() - 1).endedEpochMs()) : whole(b.end, "ended");
            out.add(new PlanRun((int) whole(h, "schema"), e.getKey(), str(h, "plan"), str(h, "description"),
                    str(h, "file"), str(h, "planText"), whole(h, "started"), ended, planned, names, state,
                    List.copyOf(b.cells), v));
        }
        return new Plans.History(out, damaged, path);
    }

    private static String str(JsonObject o, String k) {
        JsonElement e = o.get(k);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }
}
