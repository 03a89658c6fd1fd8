package rtbox.control.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.google.gson.JsonObject;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rtbox control import DIR}: stores the MQTT messages that {@code rtbox job} kept into the
 * control room's database, through the same ingest as the broker's messages, and prints each run's page.
 */
@Command(name = "import", description = "Stores the MQTT messages of a job (rtbox job's DIR/mqtt, APPLIANCE-RUN*.json)"
        + " into the control room's database and prints each run's page.")
class ImportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Parameters(index = "0", description = "folder with the messages")
    Path dir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Settings settings = ControlCommand.settings();
        try (Db db = ControlCommand.openDb(settings, ControlCommand.dataDir())) {
            Ingest ingest = new Ingest(new Decoder(settings.maxMessageBytes()), new IngestStore(db), new Events(),
                    (m, o) -> {
                    });
            List<Path> files = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.json")) {
                ds.forEach(files::add);
            }
            java.util.Set<String> runs = new java.util.TreeSet<>();
            for (Path f : files) {
                byte[] b = Files.readAllBytes(f);
                JsonObject j;
                try {
                    j = Json.parse(new String(b, StandardCharsets.UTF_8));
                } catch (RuntimeException e) {
                    err.println("rtbox control import: " + f + " is not JSON: skipped");
                    continue;
                }
                String type = Json.string(j, "type");
                if (j == null || Json.string(j, "appliance") == null || Json.string(j, "run") == null || type == null) {
                    continue;
                }
                ingest.accept("rtbox/v1/up/" + Json.string(j, "appliance") + "/runs/" + Json.string(j, "run") + "/"
                        + type, b);
                runs.add(Json.string(j, "appliance") + "/" + Json.string(j, "run"));
            }
            String base = settings.publicUrl() != null && !settings.publicUrl().isEmpty()
                    ? settings.publicUrl().replaceAll("/$", "") : "http://127.0.0.1:" + settings.port();
            for (String r : runs) {
                String[] ar = r.split("/", 2);
                out.println("rtbox control: run page " + base + "/ui/run.html?appliance=" + ControlCommand.enc(ar[0]) + "&run="
                        + ControlCommand.enc(ar[1]) + " (served by rtbox control)");
            }
            out.println("rtbox control import: " + ingest.stored() + " messages stored, " + ingest.duplicates()
                    + " already there, into " + db.url);
            return 0;
        } catch (SQLException | IOException e) {
            err.println("rtbox control import: " + e.getMessage());
            return ControlCommand.ERROR;
        }
    }
}
