package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.CookieManager;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * The real control room ({@code rtbox control}, control.jar through the launcher) in a
 * child process with its own home, on a free port, connected to a test broker as user
 * {@code control}; and a client of its JSON API with its own cookie jar.
 */
final class ControlServer implements AutoCloseable {
    final Rtbox process;
    final int port;
    final Path home;

    ControlServer(Path home, Mosquitto broker, String... extraConfig) throws IOException, InterruptedException {
        this(home, broker, List.of(), extraConfig);
    }

    /** With more arguments for {@code rtbox control} ({@code --bind ADDRESS}). */
    ControlServer(Path home, Mosquitto broker, List<String> args, String... extraConfig)
            throws IOException, InterruptedException {
        this(home, broker.uri(), args, knowing(broker, extraConfig));
    }

    /** The control room knows every appliance the broker admits (its password file), unless told otherwise. */
    private static String[] knowing(Mosquitto broker, String... extraConfig) {
        for (String c : extraConfig) {
            if (c.startsWith("appliancesFile=")) {
                return extraConfig;
            }
        }
        String[] all = java.util.Arrays.copyOf(extraConfig, extraConfig.length + 1);
        all[extraConfig.length] = "appliancesFile=" + broker.appliancePasswords();
        return all;
    }

    /** On the broker at {@code brokerUri} (a node of a cluster), as user control. */
    ControlServer(Path home, String brokerUri, List<String> args, String... extraConfig)
            throws IOException, InterruptedException {
        this.home = home;
        process = new Rtbox(home);
        Files.writeString(home.resolve("broker-password"), Mosquitto.PASSWORD + "\n");
        StringBuilder cfg = new StringBuilder();
        cfg.append("brokers=").append(brokerUri).append('\n');
        cfg.append("username=").append(Mosquitto.CONTROL).append('\n');
        cfg.append("passwordFile=").append(home.resolve("broker-password")).append('\n');
        cfg.append("plansDir=").append(home.resolve("plans")).append('\n');
        for (String c : extraConfig) {
            cfg.append(c).append('\n');
        }
        Files.writeString(home.resolve("etc/rtbox.control.cfg"), cfg.toString());
        Files.createDirectories(home.resolve("plans"));
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> all = new java.util.ArrayList<>(List.of("control", "--port", Integer.toString(port)));
        all.addAll(args);
        process.start(all.toArray(String[]::new));
        assertTrue(process.awaitLine("rtbox control: serving", 120_000) > 0, "rtbox control did not start: "
                + process.out + process.err);
    }

    String adminPassword() throws IOException {
        return Files.readString(home.resolve("data/control/admin-password")).strip();
    }

    /** A connection to this control room's H2 database (while it runs: through its AUTO_SERVER). */
    Connection openDatabase() throws IOException, SQLException {
        return openDatabase(home);
    }

    /**
     * A connection to the H2 database of the control room in {@code home}, with the login the
     * control room generated (user RTBOX, the password in data/control/db-password): what the
     * test may do as the same Unix user, and another account may not.
     */
    static Connection openDatabase(Path home) throws IOException, SQLException {
        Properties login = new Properties();
        login.setProperty("user", "RTBOX");
        login.setProperty("password", Files.readString(home.resolve("data/control/db-password")).strip());
        return DriverManager.getConnection("jdbc:h2:file:" + home.resolve("data/control/db") + ";AUTO_SERVER=TRUE",
                login);
    }

    Client client() {
        return new Client();
    }

    /** A browser-like API client: cookies kept, the CSRF token sent once logged in. */
    final class Client {
        final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(10)).build();
        String csrf;

        record Response(int status, String body) {
            JsonObject json() {
                return JsonParser.parseString(body).getAsJsonObject();
            }
        }

        Response login(String user, String password) throws IOException, InterruptedException {
            JsonObject b = new JsonObject();
            b.addProperty("user", user);
            b.addProperty("password", password);
            Response r = send("POST", "/session", b.toString(), null);
            if (r.status() == 200) {
                csrf = r.json().get("csrf").getAsString();
            }
            return r;
        }

        Response get(String path) throws IOException, InterruptedException {
            return send("GET", path, null, null);
        }

        /** A download's bytes (a record's zip), with the status. */
        byte[] bytes(String path) throws IOException, InterruptedException {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1"
                    + path)).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertTrue(r.statusCode() == 200, path + ": " + r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8));
            return r.body();
        }

        Response post(String path, String json) throws IOException, InterruptedException {
            return send("POST", path, json, csrf);
        }

        Response send(String method, String path, String json, String token) throws IOException, InterruptedException {
            return send(method, path, json, token, null);
        }

        Response send(String method, String path, String json, String token, String origin)
                throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1" + path))
                    .timeout(Duration.ofSeconds(60))
                    .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
            if (json != null) {
                b.header("Content-Type", "application/json");
            }
            if (token != null) {
                b.header("X-CSRF-Token", token);
            }
            if (origin != null) {
                b.header("Origin", origin);
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.body());
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
