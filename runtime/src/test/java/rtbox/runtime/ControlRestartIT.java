package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rtbox control} killed with -9 and started again on other settings (another port)
 * comes back on those settings only: nothing of the killed process's configuration (which
 * lived in the framework storage, and with it Jetty on the old port for about 4 s of the next
 * start) is applied again, and it prints "serving" only once its API answers.
 */
class ControlRestartIT {
    @TempDir
    Path home;

    @Test
    void aKilledControlRoomComesBackOnItsNewSettingsOnly() throws Exception {
        int oldPort = freePort();
        int newPort = freePort();
        Files.createDirectories(home.resolve("etc"));
        Files.writeString(home.resolve("etc/rtbox.control.cfg"), "brokerPort=" + freePort() + "\n");
        try (Rtbox first = new Rtbox(home)) {
            first.start("control", "--port", Integer.toString(oldPort));
            assertTrue(first.awaitLine("rtbox control: serving", 120_000) > 0, "first start: " + first.out + first.err);
            first.close(); // destroyForcibly: SIGKILL, no clean-up of its own
        }
        try (Rtbox second = new Rtbox(home)) {
            second.start("control", "--port", Integer.toString(newPort));
            int oldPortAnswered = 0;
            long end = System.currentTimeMillis() + 120_000;
            while (second.out.stream().noneMatch(l -> l.contains("rtbox control: serving"))) {
                assertTrue(System.currentTimeMillis() < end, "second start: " + second.out + second.err);
                if (listening(oldPort)) {
                    oldPortAnswered++;
                }
                Thread.sleep(20);
            }
            System.out.printf("ControlRestartIT: the old port answered %d times during the restart%n", oldPortAnswered);
            assertEquals(0, oldPortAnswered, "the restarted control room listened on the killed one's port "
                    + oldPort + ": its configuration came back");
            String password = Files.readString(home.resolve("data/control/admin-password")).strip();
            com.google.gson.JsonObject login = new com.google.gson.JsonObject();
            login.addProperty("user", "admin");
            login.addProperty("password", password);
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + newPort
                            + "/api/v1/session")).timeout(java.time.Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(login.toString())).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), "login once serving: " + r.body() + second.err);
            assertTrue(second.err.stream().noneMatch(l -> l.contains("Exception while initializing Jetty")),
                    String.join("\n", second.err));
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
