package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import rtbox.core.RunRequests;
import rtbox.core.RunSchema;

/**
 * docs/schema/ (the published JSON Schema of plans and run requests, draft 2020-12) against
 * what ships and what reads: every plans/*.json is valid by the schema (checked by networknt's
 * validator, not by our reader) and by PlanParser; and the schema and the reader (rtbox.core's
 * RunRequests, PlanParser's plan members) know the same names, deprecated ones marked alike: a
 * field one knows and the other does not fails the build.
 */
class RunRequestSchemaTest {
    static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    static final Path SCHEMA = ROOT.resolve("docs/schema");
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonSchema schema(String file) {
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(SchemaLocation.of(SCHEMA.resolve(file).toUri().toString()));
    }

    static JsonNode node(String file) throws IOException {
        return JSON.readTree(SCHEMA.resolve(file).toFile());
    }

    static Set<String> names(JsonNode properties) {
        Set<String> s = new TreeSet<>();
        properties.fieldNames().forEachRemaining(s::add);
        return s;
    }

    static Set<String> deprecated(JsonNode properties) {
        Set<String> s = new TreeSet<>();
        for (Iterator<String> i = properties.fieldNames(); i.hasNext();) {
            String n = i.next();
            if (properties.get(n).path("deprecated").asBoolean(false)) {
                s.add(n);
            }
        }
        return s;
    }

    @Test
    void everyShippedPlanIsValidByTheSchemaAndTheReader() throws IOException {
        JsonSchema plan = schema("plan.schema.json");
        List<Path> plans = new ArrayList<>();
        try (Stream<Path> s = Files.list(ROOT.resolve("plans"))) {
            s.filter(p -> p.toString().endsWith(".json")).sorted().forEach(plans::add);
        }
        assertTrue(plans.size() >= 4, "the shipped plans: " + plans);
        for (Path p : plans) {
            String text = Files.readString(p);
            Set<ValidationMessage> errors = plan.validate(text, InputFormat.JSON);
            assertEquals(Set.of(), errors, p + " by docs/schema/plan.schema.json");
            assertEquals(List.of(), PlanParser.parse(text).problems(), p + " by PlanParser");
            assertEquals("../docs/schema/plan.schema.json", JSON.readTree(text).path("$schema").asText(),
                    p + " names its schema, for editors");
        }
    }

    @Test
    void theSchemaRefusesWhatTheReaderRefuses() {
        JsonSchema run = schema("run-request.schema.json");
        for (String bad : new String[] {"{\"probe\":\"timer\",\"duraton\":\"1s\"}",
                "{\"probe\":\"timer\",\"thresholds\":{\"max_latency\":5}}",
                "{\"probe\":\"timer\",\"parameters\":{\"interval_us\":0}}",
                "{\"probe\":\"timer\",\"policy\":\"fast\"}",
                "{\"probe\":\"timer\",\"thresholds\":{\"max_us\":2.5}}"}) {
            assertFalse(run.validate(bad, InputFormat.JSON).isEmpty(), bad);
            List<String> problems = new ArrayList<>();
            RunRequests.read(com.google.gson.JsonParser.parseString(bad).getAsJsonObject(), "$", Set.of("run"),
                    problems, new ArrayList<>());
            assertFalse(problems.isEmpty(), bad);
        }
        String good = "{\"run\":\"r1\",\"probe\":\"timer\",\"policy\":\"fifo:80\",\"duration\":\"10s\","
                + "\"parameters\":{\"cpus\":\"0-1\",\"priority\":80},\"thresholds\":{\"max_us\":100,\"max_p99_us\":50}}";
        assertEquals(Set.of(), run.validate(good, InputFormat.JSON));
    }

    @Test
    void theSchemaAndTheReaderKnowTheSameNames() throws IOException {
        JsonNode defs = node("run-request.schema.json").path("$defs");
        assertEquals(new TreeSet<>(RunRequests.FIELDS), names(defs.path("members").path("properties")),
                "a run request's members");
        assertEquals(Set.of("run"), names(node("run-request.schema.json").path("properties")), "the MQTT envelope");
        Set<String> parameters = new TreeSet<>(RunRequests.PARAMETERS);
        parameters.addAll(RunRequests.DEPRECATED_PARAMETERS);
        JsonNode p = defs.path("parameters").path("properties");
        assertEquals(parameters, names(p), "parameters");
        assertEquals(new TreeSet<>(RunRequests.DEPRECATED_PARAMETERS), deprecated(p), "deprecated parameters");
        assertEquals(new TreeSet<>(RunRequests.TUNING), names(defs.path("tuning").path("properties")), "tuning");
        assertEquals(new TreeSet<>(RunRequests.LOAD), names(defs.path("load").path("anyOf").get(1).path("properties")),
                "a load object");
        JsonNode t = defs.path("thresholds").path("properties");
        Set<String> thresholds = new TreeSet<>(RunSchema.Threshold.names());
        thresholds.addAll(RunRequests.THRESHOLD_COMPANIONS);
        assertEquals(thresholds, names(t), "thresholds");
        Set<String> old = new TreeSet<>();
        for (RunSchema.Threshold th : RunSchema.Threshold.values()) {
            old.addAll(th.deprecated());
        }
        assertEquals(old, deprecated(t), "deprecated thresholds");
        JsonNode plan = node("plan.schema.json").path("properties");
        assertEquals(new TreeSet<>(PlanParser.TOP), names(plan), "a plan's own members");
        assertEquals(new TreeSet<>(PlanParser.AXES), names(plan.path("matrix").path("properties")), "matrix axes");
        assertEquals(Set.of("name"), names(plan.path("cells").path("items").path("properties")), "a cell's own");
    }
}
