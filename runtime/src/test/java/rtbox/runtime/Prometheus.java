package rtbox.runtime;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Debian's Prometheus server ({@code /usr/bin/prometheus}), started by a test in a folder of its
 * own (configuration, time-series database, log) on a free port of 127.0.0.1, and its HTTP API.
 */
final class Prometheus implements AutoCloseable {
    static final Path SERVER = Path.of("/usr/bin/prometheus");
    static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private final Process process;
    private final Path dir;
    final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static boolean available() {
        return Files.isExecutable(SERVER) && Files.isExecutable(PROMTOOL);
    }

    /** Starts it with {@code config} (prometheus.yml's text) and waits until it is ready. */
    Prometheus(Path dir, String config) throws IOException, InterruptedException {
        this.dir = dir;
        Files.writeString(dir.resolve("prometheus.yml"), config);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        process = new ProcessBuilder(SERVER.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile()).start();
        Await.until(30_000, () -> "prometheus not ready: " + log(), () -> {
            if (!process.isAlive()) {
                throw new AssertionError("prometheus exited: " + log());
            }
            return get("/-/ready").statusCode() == 200;
        });
    }

    String log() throws IOException {
        return Files.readString(dir.resolve("log"));
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** {@code /api/v1/query} of a PromQL expression: the whole answer (status, data or error). */
    JsonObject query(String promql) throws IOException, InterruptedException {
        return JsonParser.parseString(get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
                .body()).getAsJsonObject();
    }

    /** The value of an expression whose answer is one sample; null when it has none. */
    Double value(String promql) throws IOException, InterruptedException {
        JsonObject a = query(promql);
        if (!"success".equals(a.get("status").getAsString())) {
            throw new AssertionError(promql + ": " + a);
        }
        var result = a.getAsJsonObject("data").getAsJsonArray("result");
        if (result.size() != 1) {
            return null;
        }
        return Double.valueOf(result.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsString());
    }

    /** The scrape targets' state ({@code /api/v1/targets}), for a failure's message. */
    String targets() throws IOException, InterruptedException {
        return get("/api/v1/targets").body();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
    }
}
