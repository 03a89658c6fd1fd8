package rtbox.ctl.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.eclipse.paho.client.mqttv3.MqttClient;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.api.result.Verdict;
import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.CellLine;
import rtbox.mqtt.protocol.Figures;
import rtbox.mqtt.protocol.Message;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.PlanCell;
import rtbox.mqtt.protocol.PlanOutcome;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.Reply;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.RunMessage;
import rtbox.mqtt.protocol.Topics;

/**
 * {@code rtbox ctl plan} and {@code rtbox ctl results}: plans on appliances, followed
 * cell by cell to their verdicts, and past results fetched from an appliance's journal.
 * Exit codes as every rtbox command's (Verdict.Outcome.exitCode): 0 every plan passed,
 * 1 one failed, 2 an error (an error reply, no answer, a plan that could not run or was
 * aborted), 3 inconclusive; over several appliances Verdict.Outcome.worst decides.
 */
final class CtlPlans {
    static final int OK = CtlCommand.OK, ERROR = CtlCommand.ERROR;

    private CtlPlans() {
    }

    /** The local outcome of a verdict on the wire: ABORTED (the appliance restarted) is an error. */
    static Verdict.Outcome outcome(Outcome wire) {
        return wire == Outcome.ABORTED ? Verdict.Outcome.ERROR : Verdict.Outcome.valueOf(wire.name());
    }

    /** The exit code for several appliances' outcomes (Verdict.Outcome.worst); a missing one is an error. */
    static int exitCode(Iterable<Verdict.Outcome> outcomes) {
        List<Verdict.Outcome> all = new ArrayList<>();
        outcomes.forEach(o -> all.add(o == null ? Verdict.Outcome.ERROR : o));
        return Verdict.Outcome.worst(all).exitCode();
    }

    /**
     * One appliance's plan run as the control room sees it: the request, the run id
     * from the reply, the messages of the run (repeats dropped by sequence), and the
     * exit code once its result came or it gave up.
     */
    static final class Follow {
        final String appliance;
        String requestId;
        String run;
        long heardMs = System.currentTimeMillis();
        final Set<Long> seen = new HashSet<>();
        final Set<Integer> cells = new HashSet<>();
        Verdict.Outcome code;

        Follow(String appliance) {
            this.appliance = appliance;
        }
    }

    /** Handles one message; true when it was about {@code f}. */
    static boolean handle(Follow f, Message m, byte[] payload, PrintWriter o, PrintWriter err, Path out)
            throws IOException {
        if (!m.appliance().equals(f.appliance)) {
            return false;
        }
        f.heardMs = System.currentTimeMillis();
        if (m instanceof Reply r) {
            if (f.requestId != null && f.requestId.equals(r.requestId())) {
                if (r.ok() && r.body().has("run")) {
                    f.run = r.body().get("run").getAsString();
                    o.println(f.appliance + ": " + r.message());
                } else {
                    err.println(f.appliance + ": " + r.code() + " " + r.message());
                    f.code = Verdict.Outcome.ERROR;
                }
            }
            return true;
        }
        if (!(m instanceof RunMessage rm) || f.run == null || !rm.run().equals(f.run)) {
            return true;
        }
        if (!f.seen.add(rm.sequence())) {
            return true; // a repeat (the broker or the appliance sent it again): dropped by (run, sequence)
        }
        if (m instanceof Progress p) {
            o.println(f.appliance + ": " + (p.cell() == null ? p.percent() + "%" : cell(p.cell()) + " started"));
        } else if (m instanceof Cell c) {
            f.cells.add(c.cell().cell());
            o.println(f.appliance + ": " + cell(c.cell()) + ": " + c.verdict() + figures(c.figures())
                    + (c.verdict() == Outcome.PASS ? "" : ": " + c.reason()));
            write(out, f.appliance + "-" + f.run + "-cell-" + c.cell().cell() + ".json", payload);
        } else if (m instanceof Result r && f.code == null) {
            PlanOutcome plan = r.plan();
            o.println(f.appliance + ": " + (plan != null ? "plan " + plan.plan() + " " : "") + r.verdict()
                    + (plan != null ? " (" + (plan.state() == null ? "" : plan.state()) + ", "
                            + (plan.cellsRun() == null ? 0 : plan.cellsRun()) + " of " + plan.cellsPlanned()
                            + " cells)" : figures(r.figures()))
                    + ": " + r.reason());
            if (plan != null && plan.cells() != null) {
                List<String> missing = new ArrayList<>();
                for (CellLine c : plan.cells()) {
                    if (!f.cells.contains(c.cell())) {
                        missing.add(Integer.toString(c.cell()));
                    }
                }
                if (!missing.isEmpty()) {
                    err.println(f.appliance + ": the results of cells " + String.join(", ", missing)
                            + " did not arrive; fetch them with: rtbox ctl results " + f.appliance + " " + f.run);
                }
            }
            write(out, f.appliance + "-" + f.run + ".json", payload);
            f.code = outcome(r.verdict());
        }
        return true;
    }

    private static String cell(PlanCell c) {
        return "cell " + c.cell() + "/" + c.cells() + " " + c.name();
    }

    private static String figures(Figures f) {
        return f != null ? String.format(Locale.ROOT, ", max %s us, p99 %s us, %s samples", f.maxUs(), f.p99Us(),
                f.samples()) : "";
    }

    /** The message as it arrived, byte for byte. */
    private static void write(Path out, String name, byte[] payload) throws IOException {
        if (out != null) {
            Files.createDirectories(out);
            Files.write(out.resolve(name), payload);
        }
    }

    static String str(JsonObject j, String k) {
        return j.has(k) && !j.get(k).isJsonNull() ? j.get(k).getAsString() : "";
    }

    /**
     * Reads messages until every appliance has its result, gave none for {@code silenceMs}
     * (its status counts: it comes at each 10 % of a cell), or did not reply within
     * {@code replyMs}.
     */
    static void follow(CtlCommand.Broker broker, List<Follow> all, long replyMs, long silenceMs, PrintWriter o,
            PrintWriter err, Path out) throws InterruptedException, IOException {
        while (all.stream().anyMatch(f -> f.code == null)) {
            CtlCommand.Broker.Received m = broker.received.poll(1, TimeUnit.SECONDS);
            if (m != null && m.topic() == null) {
                err.println("rtbox ctl: " + m.lost());
                all.forEach(f -> f.code = f.code == null ? Verdict.Outcome.ERROR : f.code);
                return;
            }
            Message msg = m == null ? null : m.decode(err);
            if (msg != null) {
                for (Follow f : all) {
                    if (f.code == null && handle(f, msg, m.payload(), o, err, out)) {
                        break;
                    }
                }
                o.flush();
            }
            long now = System.currentTimeMillis();
            for (Follow f : all) {
                if (f.code == null && now - f.heardMs > (f.run == null ? replyMs : silenceMs)) {
                    err.println(f.appliance + ": " + (f.run == null ? "no reply in " + replyMs / 1000
                            + " s (is it online? see rtbox ctl list)" : "nothing for " + silenceMs / 1000
                            + " s, not even its status; run " + f.run + " may still end: rtbox ctl results "
                            + f.appliance + " " + f.run));
                    f.code = Verdict.Outcome.ERROR;
                }
            }
        }
    }

    static List<String> topics(String appliance) {
        return List.of(Topics.replies(appliance), Topics.runs(appliance), Topics.status(appliance));
    }

    @Command(name = "plan", sortOptions = false, description = "Runs a plan on one or several appliances, follows"
            + " its cells and prints each verdict. Exit: 0 PASS, 1 FAIL, 2 error or no answer, 3 INCONCLUSIVE.")
    static final class Plan implements Callable<Integer> {
        @Mixin
        CtlCommand.Broker broker;
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "APPLIANCE[,APPLIANCE...]")
        String appliances;
        @Parameters(index = "1", paramLabel = "PLAN", description = "A plan file here (sent inline), or the name of a"
                + " plan in each appliance's plans folder.")
        String plan;
        @Option(names = "--out", paramLabel = "DIR", description = "Write each result as DIR/APPLIANCE-RUN.json and"
                + " each cell's as DIR/APPLIANCE-RUN-cell-N.json.")
        Path out;
        @Option(names = "--silence", paramLabel = "S", description = "Give up on an appliance that sends nothing, not"
                + " even its status, for S seconds (default 120).")
        long silenceS = 120;

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            JsonObject body = new JsonObject();
            Path file = Path.of(plan);
            if (Files.isRegularFile(file)) {
                JsonElement p;
                try {
                    // rtbox.json's strict reader, as the appliance reads it: refused here, not there.
                    p = rtbox.json.StrictJson.parse(Files.readString(file, StandardCharsets.UTF_8));
                } catch (rtbox.json.JsonProblem | IOException e) {
                    err.println("rtbox ctl: cannot read the plan " + file + ": " + e.getMessage());
                    return ERROR;
                }
                if (!p.isJsonObject()) {
                    err.println("rtbox ctl: " + file + " is not a plan: not a JSON object");
                    return ERROR;
                }
                body.add("plan", p);
            } else if (plan.contains("/")) {
                err.println("rtbox ctl: no plan file " + file + " (a name without '/' names a plan on the appliance)");
                return ERROR;
            } else {
                body.addProperty("name", plan);
            }
            List<Follow> all = new ArrayList<>();
            List<String> topics = new ArrayList<>();
            for (String a : appliances.split(",")) {
                all.add(new Follow(a.trim()));
                topics.addAll(topics(a.trim()));
            }
            MqttClient c = broker.connectOrSay(err, topics.toArray(String[]::new));
            if (c == null) {
                return ERROR;
            }
            try {
                for (Follow f : all) {
                    f.requestId = CtlCommand.Broker.send(c, f.appliance, "plan", body.deepCopy());
                    f.heardMs = System.currentTimeMillis();
                }
                follow(broker, all, 20_000, silenceS * 1000, o, err, out);
            } finally {
                CtlCommand.Broker.close(c);
            }
            o.flush();
            return exitCode(all.stream().map(f -> f.code).toList());
        }
    }

    @Command(name = "results", sortOptions = false, description = "Lists the runs in an appliance's result journal,"
            + " or fetches one run's results (RUN, or 'last'): its cells and its verdict, exit code as for plan.")
    static final class Results implements Callable<Integer> {
        @Mixin
        CtlCommand.Broker broker;
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "APPLIANCE")
        String appliance;
        @Parameters(index = "1", arity = "0..1", paramLabel = "RUN")
        String run;
        @Option(names = "--limit", paramLabel = "N", description = "List the last N runs (1-100, default 20).")
        int limit = 20;
        @Option(names = "--out", paramLabel = "DIR", description = "Write the fetched results as for plan.")
        Path out;

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            MqttClient c = broker.connectOrSay(err, topics(appliance).toArray(String[]::new));
            if (c == null) {
                return ERROR;
            }
            try {
                JsonObject body = new JsonObject();
                if (run != null) {
                    body.addProperty("run", run);
                    Follow f = new Follow(appliance);
                    f.requestId = CtlCommand.Broker.send(c, appliance, "results", body);
                    follow(broker, List.of(f), 20_000, 60_000, o, err, out);
                    o.flush();
                    return exitCode(List.of(f.code));
                }
                body.addProperty("limit", limit);
                String id = CtlCommand.Broker.send(c, appliance, "results", body);
                long end = System.currentTimeMillis() + 20_000;
                for (CtlCommand.Broker.Received m; (m = broker.received.poll(Math.max(1,
                        end - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) != null;) {
                    if (m.topic() == null || !m.topic().equals(Topics.reply(appliance, id))
                            || !(m.decode(err) instanceof Reply j)) {
                        continue;
                    }
                    if (!j.ok()) {
                        err.println(appliance + ": " + j.code() + " " + j.message());
                        return ERROR;
                    }
                    JsonObject b = j.body();
                    o.printf(Locale.ROOT, "%-22s %-20s %-11s %-12s %-20s %s%n", "RUN", "PLAN", "STATE", "VERDICT",
                            "STARTED", "CELLS");
                    com.google.gson.JsonArray runs = b.getAsJsonArray("runs");
                    for (int i = 0; i < runs.size(); i++) {
                        JsonObject r = runs.get(i).getAsJsonObject();
                        int cellsRun, cellsPlanned;
                        try {
                            // Exactly, by rtbox.json: a count of 2.5 is an error naming it, not 2.
                            rtbox.json.JsonFields f = rtbox.json.JsonFields.of(r, "$.runs[" + i + "]");
                            cellsRun = f.integer("cells_run");
                            cellsPlanned = f.integer("cells_planned");
                        } catch (rtbox.json.JsonProblem p) {
                            err.println(appliance + ": its reply does not read: " + p.getMessage());
                            return ERROR;
                        }
                        o.printf(Locale.ROOT, "%-22s %-20s %-11s %-12s %-20s %d/%d%n", str(r, "run"), str(r, "plan"),
                                str(r, "state"), r.has("verdict") ? str(r, "verdict") : "-",
                                str(r, "started").replaceFirst("\\.\\d+Z$", "Z"), cellsRun, cellsPlanned);
                    }
                    o.println(j.message() + " (" + str(b, "journal") + ")");
                    o.flush();
                    return OK;
                }
                err.println(appliance + ": no reply in 20 s (is it online? see rtbox ctl list)");
                return ERROR;
            } finally {
                CtlCommand.Broker.close(c);
            }
        }
    }
}
