package rtbox.runtime.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.Topics;

/**
 * Real payloads for simulated appliances: the cell and the result of plans/quick.json run
 * here by the README's main command ({@code rtbox job plans/quick.json --report report},
 * 2026-12-03, its {@code report/mqtt/} files: the cell is 90 KB, its histogram of 4,690
 * buckets and its full run report included). A simulated message is the recorded one with
 * only its envelope changed (appliance, run, sequence, timestamp, cell numbers; a result's
 * list of cells); the figures, the histogram and the report are the real run's. Each kind is
 * read back once by the shared codec as the control room reads it.
 */
public final class RecordedPayloads {
    private final byte[] cellBody;
    private final JsonObject cell;
    private final JsonObject result;

    public RecordedPayloads() throws IOException {
        cell = read("quick-cell.json");
        result = read("quick-result.json");
        JsonObject body = cell.deepCopy();
        for (String envelope : new String[] {"schema", "type", "timestamp", "appliance", "run", "sequence", "cell",
            "cells", "cell_name"}) {
            body.remove(envelope);
        }
        String s = body.toString();
        // "{...}" without its opening brace: appended after the envelope written per message.
        cellBody = s.substring(1).getBytes(StandardCharsets.UTF_8);
        try {
            Codec.decode(Topics.cell("sim0", "r1"), cell("sim0", "r1", 2, 1, 2), Cell.class);
            Codec.decode(Topics.result("sim0", "r1"), result("sim0", "r1", 5, 2), Result.class);
        } catch (ProtocolException e) {
            throw new IOException("the recorded payloads do not read back: " + e.getMessage(), e);
        }
    }

    private static JsonObject read(String name) throws IOException {
        try (InputStream in = RecordedPayloads.class.getResourceAsStream("/fleet/" + name)) {
            if (in == null) {
                throw new IOException("/fleet/" + name + " is not on the class path");
            }
            return JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
        }
    }

    /** The recorded cell's size in bytes. */
    public int cellBytes() {
        return cellBody.length + 200;
    }

    /** Cell {@code cell} of {@code cells} of {@code run}, numbered {@code sequence}. */
    public byte[] cell(String appliance, String run, long sequence, int cell, int cells) {
        JsonObject e = new JsonObject();
        e.addProperty("schema", Codec.SCHEMA);
        e.addProperty("type", "cell");
        e.addProperty("timestamp", Instant.now().toString());
        e.addProperty("appliance", appliance);
        e.addProperty("run", run);
        e.addProperty("sequence", sequence);
        e.addProperty("cell", cell);
        e.addProperty("cells", cells);
        e.addProperty("cell_name", "cell" + cell);
        String head = e.toString();
        byte[] h = head.substring(0, head.length() - 1).getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[h.length + 1 + cellBody.length];
        System.arraycopy(h, 0, out, 0, h.length);
        out[h.length] = ',';
        System.arraycopy(cellBody, 0, out, h.length + 1, cellBody.length);
        return out;
    }

    /** The plan's result, numbered {@code sequence}, listing its {@code cells} cells as the recorded one does. */
    public byte[] result(String appliance, String run, long sequence, int cells) {
        JsonObject r = result.deepCopy();
        r.addProperty("timestamp", Instant.now().toString());
        r.addProperty("appliance", appliance);
        r.addProperty("run", run);
        r.addProperty("sequence", sequence);
        r.addProperty("cells_planned", cells);
        r.addProperty("cells_run", cells);
        JsonArray recorded = result.getAsJsonArray("cells");
        JsonArray list = new JsonArray();
        for (int i = 0; i < cells; i++) {
            JsonObject c = recorded.get(i % recorded.size()).getAsJsonObject().deepCopy();
            c.addProperty("cell", i + 1);
            c.addProperty("name", "cell" + (i + 1));
            c.addProperty("sequence", 2 * i + 2);
            list.add(c);
        }
        r.add("cells", list);
        return r.toString().getBytes(StandardCharsets.UTF_8);
    }
}
