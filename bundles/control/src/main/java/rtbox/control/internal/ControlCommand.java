package rtbox.control.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.osgi.service.servlet.runtime.dto.ServletContextDTO;
import org.osgi.service.servlet.runtime.dto.ServletDTO;


import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import rtbox.broker.LocalBroker;
import rtbox.cli.Subcommand;
import rtbox.control.ControlWeb;

/**
 * {@code rtbox control}: serves the control room (the embedded broker unless a site
 * broker is configured, the ingest, the web application) until SIGTERM;
 * {@code rtbox control verify} checks the acceptance records' hash chain;
 * {@code rtbox control import DIR} stores a job's messages (what {@code rtbox job} calls).
 */
@Component(service = Subcommand.class, configurationPid = "rtbox.control",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = Settings.class)
@Command(name = "control", description = {"The control room: keeps, shows, compares and certifies the fleet's results.",
    "  rtbox control [--port 8480] [--bind 127.0.0.1]   serve it (docs/control-api.md), until SIGTERM",
    "  rtbox control verify                            check the acceptance records' signatures, chain and runs",
    "  rtbox control keys [--rotate]                   print (or rotate) the keys that sign the records",
    "  rtbox control import DIR                        store the MQTT messages rtbox job kept in DIR"},
        subcommands = {RecordCommands.Verify.class, RecordCommands.Keys.class, ImportCommand.class})
public class ControlCommand implements Callable<Integer>, Subcommand {
    static final int ERROR = 2;
    static final String HTTP_PID = "org.apache.felix.http";

    @Spec
    CommandSpec spec;
    @Option(names = "--port", description = "HTTP(S) port (default: port in rtbox.control, 8480)")
    Integer port;
    @Option(names = "--bind", description = "address to bind (default 127.0.0.1; another needs tlsKeyStore: HTTPS)")
    String bind;

    @Reference
    ConfigurationAdmin cm;
    @Reference
    StartFailure startFailure;

    private static volatile BundleContext context;
    private static volatile Settings settings;
    private final CountDownLatch stopped = new CountDownLatch(1);

    @Activate
    @Modified
    void activate(BundleContext bc, Settings s) {
        context = bc;
        settings = s;
    }

    @Deactivate
    void deactivate() {
        stopped.countDown();
    }

    static Path dataDir(BundleContext bc) {
        String storage = bc.getProperty("rtbox.control.data");
        if (storage != null) {
            return Path.of(storage).toAbsolutePath();
        }
        storage = bc.getProperty("launch.storage.dir");
        return storage != null ? Path.of(storage).toAbsolutePath().getParent()
                : bc.getDataFile("").toPath().toAbsolutePath();
    }

    static Path plansDir(Settings s) {
        if (s.plansDir() != null && !s.plansDir().isEmpty()) {
            return Path.of(s.plansDir());
        }
        return Path.of(System.getProperty("rtbox.home", ".")).resolve("plans").toAbsolutePath();
    }

    /**
     * The configured database, or the H2 file under DATA/control/db (AUTO_SERVER: rtbox job and
     * verify share it while the control room runs) with its generated login ({@link H2Login}).
     */
    static Db openDb(Settings s, Path data) throws SQLException, IOException {
        return openDb(s, data, false);
    }

    /** {@code existing}: refuse a database without the control room's schema rather than make one (verify). */
    static Db openDb(Settings s, Path data, boolean existing) throws SQLException, IOException {
        String url = s.jdbcUrl();
        if (url != null && !url.isEmpty()) {
            return Db.open(url, s.jdbcUser(), MqttLink.readSecret(s.jdbcPasswordFile()), existing);
        }
        url = h2Url(data);
        H2Login login = H2Login.of(data.resolve("control"));
        Db db;
        try (java.sql.Connection held = login.open(url)) {
            db = Db.open(url, H2Login.USER, login.password(), existing);
        }
        try {
            // H2 has just made its lock file with the process's umask (0644): made 0600 like the rest.
            OwnerOnlyFolder.ensure(data.resolve("control"));
        } catch (IOException e) {
            db.close();
            throw e;
        }
        return db;
    }

    static String h2Url(Path data) throws IOException {
        OwnerOnlyFolder.ensure(data.resolve("control"));
        return "jdbc:h2:file:" + data.resolve("control").resolve("db").toAbsolutePath() + ";AUTO_SERVER=TRUE";
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Settings s = settings;
        Path data = dataDir(context);
        int httpPort = port != null ? port : s.port();
        String address = bind != null ? bind : s.bind();
        boolean local;
        try {
            local = InetAddress.getByName(address).isLoopbackAddress();
        } catch (IOException e) {
            err.println("rtbox control: --bind " + address + ": not an address of this machine (" + e.getMessage() + ")");
            return ERROR;
        }
        if (!local && (s.tlsKeyStore() == null || s.tlsKeyStore().isEmpty())) {
            err.println("rtbox control: bound to " + address + " the control room serves HTTPS only: set tlsKeyStore"
                    + " and tlsKeyStorePasswordFile in etc/rtbox.control.cfg (or bind 127.0.0.1)");
            return ERROR;
        }
        LocalBroker broker = null;
        Configuration serve = null;
        Configuration http = null;
        try {
            String brokers = s.brokers();
            String passwordFile = s.passwordFile();
            String user = s.username();
            if (brokers == null || brokers.isEmpty()) {
                Path pw = passwordFile == null || passwordFile.isEmpty() ? data.resolve("broker").resolve("password")
                        : Path.of(passwordFile);
                broker = LocalBroker.start(s.brokerPort(), 64 * 1024 * 1024, pw);
                brokers = broker.uri();
                passwordFile = pw.toString();
                user = LocalBroker.CONTROL_USER;
                err.println("rtbox control: embedded broker on " + brokers + " (127.0.0.1 only; password in " + pw + ")");
            }
            String scheme = local ? "http" : "https";
            String url = s.publicUrl() != null && !s.publicUrl().isEmpty() ? s.publicUrl()
                    : scheme + "://" + (address.contains(":") ? "[" + address + "]" : address) + ":" + httpPort + "/";
            Dictionary<String, Object> p = new Hashtable<>();
            // Empty: the control room opens the H2 file in the data folder with its login (openDb).
            p.put("jdbcUrl", s.jdbcUrl() == null ? "" : s.jdbcUrl());
            p.put("jdbcUser", s.jdbcUser());
            p.put("jdbcPasswordFile", s.jdbcPasswordFile());
            p.put("brokers", brokers);
            p.put("username", user);
            p.put("passwordFile", passwordFile == null ? "" : passwordFile);
            p.put("tlsTrustStore", s.tlsTrustStore());
            p.put("clientId", s.clientId());
            p.put("sharedGroup", s.sharedGroup());
            p.put("maxMessageBytes", s.maxMessageBytes());
            p.put("silentAfterSeconds", s.silentAfterSeconds());
            p.put("replySeconds", s.replySeconds());
            p.put("floodMessagesPerSecond", s.floodMessagesPerSecond());
            p.put("selftestMaxAge", s.selftestMaxAge());
            p.put("signOff", s.signOff());
            p.put("webhookRetrySeconds", s.webhookRetrySeconds());
            p.put("webhookRetryMaxSeconds", s.webhookRetryMaxSeconds());
            p.put("webhookGiveUpHours", s.webhookGiveUpHours());
            p.put("plansDir", plansDir(s).toString());
            p.put("appliancesFile", s.appliancesFile());
            p.put("embeddedBroker", broker != null);
            p.put("dataDir", data.toString());
            p.put("publicUrl", url);
            serve = cm.getConfiguration(ControlRoom.PID, "?");
            serve.update(p);
            ControlRoom room = await(err);
            if (room == null) {
                return ERROR;
            }
            http = cm.getConfiguration(HTTP_PID, "?");
            http.update(httpConfig(s, address, httpPort, local));
            String missing = awaitApi(address, httpPort, 60_000);
            if (missing != null && listening(address, httpPort)) {
                // Felix HTTP can fail inside its Jetty start (it logs "Exception while initializing
                // Jetty") and keep the port open with no servlet behind it: start it once more.
                err.println("rtbox control: " + missing + ": starting the web server once more");
                http.delete();
                http = cm.getConfiguration(HTTP_PID, "?");
                http.update(httpConfig(s, address, httpPort, local));
                missing = awaitApi(address, httpPort, 60_000);
            }
            if (missing != null) {
                err.println("rtbox control: " + missing + " after 60 s (the log above says why)");
                return ERROR;
            }
            out.println("rtbox control: serving " + url + " (API " + url.replaceAll("/$", "") + "/api/v1/)");
            if (room.adminMade()) {
                out.println("rtbox control: first start: user 'admin', password in " + room.adminPasswordFile()
                        + " (mode 0600)");
            }
            out.flush();
            stopped.await();
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("rtbox control: " + e.getMessage());
            return ERROR;
        } finally {
            if (http != null) {
                http.delete();
            }
            if (serve != null) {
                serve.delete();
            }
            if (broker != null) {
                broker.close();
            }
        }
    }

    /**
     * Waits until the web server listens on the port and has the API servlet in the control
     * room's context (the Servlet Whiteboard's runtime DTO): a port that answers is not yet
     * a control room that serves. Null once both hold, else what is missing.
     */
    private static String awaitApi(String address, int port, long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        String missing = "the web server is not listening on " + address + ":" + port + " (port taken?)";
        while (System.currentTimeMillis() < end) {
            if (listening(address, port)) {
                if (apiRegistered()) {
                    return null;
                }
                missing = "the web server listens but serves no API (no servlet " + ControlRoom.API_SERVLET + " in context "
                        + ControlWeb.CONTEXT_NAME + " on " + address + ":" + port + ")";
            }
            Thread.sleep(100);
        }
        return missing;
    }

    private static boolean listening(String address, int port) {
        try (java.net.Socket sock = new java.net.Socket()) {
            sock.connect(new java.net.InetSocketAddress(address, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean apiRegistered() {
        ServiceReference<HttpServiceRuntime> ref = context.getServiceReference(HttpServiceRuntime.class);
        HttpServiceRuntime runtime = ref == null ? null : context.getService(ref);
        if (runtime == null) {
            return false;
        }
        try {
            for (ServletContextDTO c : runtime.getRuntimeDTO().servletContextDTOs) {
                if (ControlWeb.CONTEXT_NAME.equals(c.name)) {
                    for (ServletDTO sd : c.servletDTOs) {
                        if (ControlRoom.API_SERVLET.equals(sd.name)) {
                            return true;
                        }
                    }
                }
            }
            return false;
        } finally {
            context.ungetService(ref);
        }
    }

    private ControlRoom await(PrintWriter err) throws InterruptedException {
        long end = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < end) {
            ServiceReference<ControlRoom> ref = context.getServiceReference(ControlRoom.class);
            if (ref != null) {
                ControlRoom r = context.getService(ref);
                if (r != null) {
                    return r;
                }
            }
            String failed = startFailure.reason();
            if (failed != null) {
                err.println("rtbox control: cannot start: " + failed);
                return null;
            }
            Thread.sleep(100);
        }
        err.println("rtbox control: the control room did not start within 120 s");
        return null;
    }

    private static Dictionary<String, Object> httpConfig(Settings s, String address, int port, boolean local)
            throws IOException {
        Dictionary<String, Object> h = new Hashtable<>();
        h.put("org.apache.felix.http.host", address);
        h.put("org.apache.felix.http.jetty.sendServerHeader", false);
        if (local) {
            h.put("org.apache.felix.http.enable", true);
            h.put("org.apache.felix.https.enable", false);
            h.put("org.osgi.service.http.port", port);
        } else {
            String pw = MqttLink.readSecret(s.tlsKeyStorePasswordFile());
            h.put("org.apache.felix.http.enable", false);
            h.put("org.apache.felix.https.enable", true);
            h.put("org.osgi.service.http.port.secure", port);
            h.put("org.apache.felix.https.keystore", s.tlsKeyStore());
            if (pw != null) {
                h.put("org.apache.felix.https.keystore.password", pw);
                h.put("org.apache.felix.https.keystore.key.password", pw);
            }
        }
        return h;
    }

    static Path keysDir(Path data) {
        return data.resolve("control").resolve("keys");
    }

    /** The control room's settings and data folder, for the record commands ({@link RecordCommands}). */
    static Settings settings() {
        return settings;
    }

    static Path dataDir() {
        return dataDir(context);
    }

    static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
