package rtbox.control.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.Callable;

import com.google.gson.JsonObject;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rtbox control verify} and {@code rtbox control keys}: the acceptance records' checks and keys. */
final class RecordCommands {
    private RecordCommands() {
    }

    @Command(name = "verify", description = "Checks the acceptance records' hash chain and names the first record"
            + " that was changed. Exit 0 intact, 1 changed, 2 error.")
    static class Verify implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Path data = ControlCommand.dataDir();
            Path h2 = data.resolve("control").resolve("db.mv.db");
            if ((ControlCommand.settings().jdbcUrl() == null || ControlCommand.settings().jdbcUrl().isEmpty()) && !Files.exists(h2)) {
                spec.commandLine().getErr().println("rtbox control verify: no control room database in " + data
                        + " (" + h2 + " does not exist): nothing to verify; is this the control room's data folder?");
                return 2;
            }
            try (Db db = ControlCommand.openDb(ControlCommand.settings(), data, true)) {
                RecordKeys keys = RecordKeys.read(ControlCommand.keysDir(data));
                JsonObject v = new RecordCheck(db, keys).verify();
                String where = db.url.replaceAll("password=[^;&]*", "password=...");
                if (v.get("ok").getAsBoolean()) {
                    out.println("rtbox control verify: OK: " + v.get("records") + " records, every signature"
                            + " valid (keys in " + keys.dir() + "), the chain intact, every run's data as sealed ("
                            + where + ")");
                    return 0;
                }
                for (var e : v.getAsJsonArray("problems")) {
                    out.println("rtbox control verify: FAILED: " + e.getAsJsonObject().get("problem").getAsString());
                }
                out.println("rtbox control verify: FAILED: " + v.getAsJsonArray("problems").size() + " problems in "
                        + v.get("records") + " records (" + where + ")");
                return 1;
            } catch (SQLException | IOException e) {
                spec.commandLine().getErr().println("rtbox control verify: " + e.getMessage());
                return 2;
            }
        }
    }

    @Command(name = "keys", description = "Prints the public keys that sign acceptance records (the current one and"
            + " the rotated ones, kept so that old records still verify), each with its id and fingerprint (SHA-256 of"
            + " the public key's DER bytes). --rotate makes a new key sign the records issued from now on.")
    static class Keys implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--rotate", description = "make a new signing key; the old public keys stay published")
        boolean rotate;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Path dir = ControlCommand.keysDir(ControlCommand.dataDir());
            try {
                RecordKeys keys = RecordKeys.read(dir);
                if (rotate) {
                    String id = Files.exists(dir.resolve("current")) ? keys.rotate() : RecordKeys.open(dir).currentId();
                    out.println("rtbox control keys: new signing key " + id + " (records issued from now on)");
                }
                var published = keys.publicKeys();
                if (published.isEmpty()) {
                    spec.commandLine().getErr().println("rtbox control keys: no keys in " + dir + " (the control room"
                            + " makes its first at its first start; --rotate makes one now)");
                    return 2;
                }
                String current = keys.currentId();
                for (var e : published.entrySet()) {
                    out.println("key " + e.getKey() + (e.getKey().equals(current) ? " (signs new records)" : " (rotated)")
                            + "\nfingerprint SHA-256 " + RecordKeys.fingerprint(e.getValue()) + "\n"
                            + RecordKeys.pem(e.getValue()));
                }
                return 0;
            } catch (IOException e) {
                spec.commandLine().getErr().println("rtbox control keys: " + e.getMessage());
                return 2;
            }
        }
    }
}
