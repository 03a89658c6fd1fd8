package rtbox.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A mosquitto broker of the test's own, on a free loopback port, with a password
 * file (made with mosquitto_passwd) and the repository's ACL (docs/mosquitto.acl).
 * Never the system's broker: its own config, its own folder.
 */
final class Mosquitto implements AutoCloseable {
    static final String CONTROL = "control";
    static final String PASSWORD = "test-password";
    final Path dir;
    final int port;
    /** The TLS listener's port, or 0 without one. */
    final int tlsPort;
    private Process process;

    /** A TLS listener: the server's certificate and key (PEM), the CA clients' certificates are checked against. */
    record Tls(Path cert, Path key, Path ca, boolean clientCertificates) {
    }

    Mosquitto(Path dir, String... appliances) throws IOException, InterruptedException {
        this(dir, false, appliances);
    }

    Mosquitto(Path dir, boolean persistent, String... appliances) throws IOException, InterruptedException {
        this(dir, persistent, null, appliances);
    }

    /**
     * {@code persistent}: the broker saves its sessions and queued messages after every change,
     * so that a SIGKILL loses none of them (as a site broker configured for it would).
     */
    /**
     * With {@code tls}, a second listener speaks TLS; with client certificates required there,
     * the certificate's CN is the user name the ACL sees (no password).
     */
    Mosquitto(Path dir, boolean persistent, Tls tls, String... appliances) throws IOException, InterruptedException {
        this.dir = dir;
        port = freePort();
        tlsPort = tls == null ? 0 : freePort();
        Path passwd = dir.resolve("passwd");
        List<String> users = new ArrayList<>(List.of(appliances));
        users.add(CONTROL);
        for (String u : users) {
            List<String> cmd = new ArrayList<>(List.of("mosquitto_passwd", "-b"));
            if (!Files.exists(passwd)) {
                cmd.add("-c");
            }
            cmd.addAll(List.of(passwd.toString(), u, PASSWORD));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException("mosquitto_passwd failed: " + out);
            }
        }
        Path acl = dir.resolve("acl");
        Files.copy(Path.of("..", "docs", "mosquitto.acl"), acl);
        Files.writeString(dir.resolve("mosquitto.conf"), String.join("\n",
                "listener " + port + " 127.0.0.1",
                // Run as root, mosquitto would switch to user mosquitto, who cannot read the test's folder.
                "user " + System.getProperty("user.name"),
                "allow_anonymous false",
                "password_file " + passwd,
                "acl_file " + acl,
                persistent ? "persistence true\npersistence_location " + dir + "/\nautosave_interval 1\n"
                        + "autosave_on_changes true" : "persistence false",
                tls == null ? "" : String.join("\n", "listener " + tlsPort + " 127.0.0.1",
                        "cafile " + tls.ca(), "certfile " + tls.cert(), "keyfile " + tls.key(),
                        "require_certificate " + tls.clientCertificates(),
                        "use_identity_as_username " + tls.clientCertificates()),
                "log_dest file " + dir.resolve("mosquitto.log"),
                "log_type all",
                // Packets out at once, as the clients' (rtbox.mqtt.client.ClientOptions): with Nagle's algorithm a reply the
                // broker relays waited for the test client's delayed ACK of the packet before, about 40 ms.
                "set_tcp_nodelay true",
                "") );
        start();
    }

    /** The control room's listener of a site broker ({@link #site}); 0 for the others. */
    int controlPort;

    private Mosquitto(Path dir, int port) {
        this.dir = dir;
        this.port = port;
        this.tlsPort = 0;
    }

    /**
     * A broker from the shipped site configuration, docs/mosquitto.conf, as it is (only its
     * ports, its folders and the user to run as replaced): appliances on {@link #uri()}, the
     * control room on {@link #controlUri()}, each listener with its own password file.
     */
    static Mosquitto site(Path dir, String... appliances) throws IOException, InterruptedException {
        return site(dir, List.of(), appliances);
    }

    /** {@link #site(Path, String...)}, with {@code readers} beside the control room's user on its listener. */
    static Mosquitto site(Path dir, List<String> readers, String... appliances) throws IOException, InterruptedException {
        Mosquitto m = new Mosquitto(dir, freePort());
        m.controlPort = freePort();
        passwords(dir.resolve("rtbox-appliances.passwd"), List.of(appliances));
        List<String> control = new ArrayList<>(List.of(CONTROL));
        control.addAll(readers);
        passwords(dir.resolve("rtbox-control.passwd"), control);
        Files.copy(Path.of("..", "docs", "mosquitto.acl"), dir.resolve("rtbox.acl"));
        String conf = Files.readString(Path.of("..", "docs", "mosquitto.conf"))
                .replace("listener 1883", "listener " + m.port + " 127.0.0.1")
                .replace("listener 1884", "listener " + m.controlPort + " 127.0.0.1")
                .replace("/etc/mosquitto/", dir + "/")
                .replace("/var/lib/mosquitto/", dir + "/");
        Files.writeString(dir.resolve("mosquitto.conf"), conf + "\nuser " + System.getProperty("user.name")
                + "\nlog_dest file " + dir.resolve("mosquitto.log") + "\nlog_type all\n");
        m.start();
        return m;
    }

    /**
     * The appliances' password file (the appliance listener's on a site broker): what a control
     * room's appliancesFile names, so that it knows every appliance this broker admits.
     */
    Path appliancePasswords() {
        Path site = dir.resolve("rtbox-appliances.passwd");
        return Files.exists(site) ? site : dir.resolve("passwd");
    }

    String controlUri() {
        return "tcp://127.0.0.1:" + controlPort;
    }

    private static void passwords(Path file, List<String> users) throws IOException, InterruptedException {
        for (String u : users) {
            List<String> cmd = new ArrayList<>(List.of("mosquitto_passwd", "-b"));
            if (!Files.exists(file)) {
                cmd.add("-c");
            }
            cmd.addAll(List.of(file.toString(), u, PASSWORD));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException("mosquitto_passwd failed: " + out);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    void start() throws IOException, InterruptedException {
        process = new ProcessBuilder("mosquitto", "-c", dir.resolve("mosquitto.conf").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout").toFile()).start();
        long end = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < end) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException e) {
                if (!process.isAlive()) {
                    throw new IOException("mosquitto exited: " + Files.readString(dir.resolve("stdout")));
                }
                Thread.sleep(50);
            }
        }
        throw new IOException("mosquitto did not listen on " + port + " within 10 s");
    }

    String uri() {
        return "tcp://127.0.0.1:" + port;
    }

    /** The TLS listener, by the host name its certificate names. */
    String tlsUri() {
        return "ssl://localhost:" + tlsPort;
    }

    /** SIGKILL: the broker vanishes without a word, as on a power loss. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    String log() throws IOException {
        Path f = dir.resolve("mosquitto.log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
    }
}
