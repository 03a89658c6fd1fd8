package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LoadFiguresTest {
    @Test
    void jsonKeepsFullPrecisionAndQuotes() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("mode", "rtt");
        p.put("path", "/tmp/a \"b\"\\c");
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("round_trips", 1000000.0);
        f.put("round_trips_per_s", 123456.789012);
        f.put("tiny", 1e-5);
        f.put("bad", Double.NaN);
        assertEquals("{\n  \"workload\": \"pipe\",\n  \"parameters\": {\"mode\": \"rtt\", \"path\": \"/tmp/a \\\"b\\\"\\\\c\"},\n"
                + "  \"duration_s\": 5,\n  \"figures\": {\n    \"round_trips\": 1000000,\n"
                + "    \"round_trips_per_s\": 123456.789012,\n    \"tiny\": 1.0E-5,\n    \"bad\": null\n  }\n}\n",
                LoadFigures.json("pipe", p, 5.0, f));
        assertEquals("{\n  \"workload\": \"x\",\n  \"parameters\": {},\n  \"duration_s\": 0.5,\n  \"figures\": {}\n}\n",
                LoadFigures.json("x", Map.of(), 0.5, Map.of()));
    }
}
