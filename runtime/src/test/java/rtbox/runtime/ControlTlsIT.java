package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control room bound to an address other than loopback serves HTTPS only: without a
 * key store {@code rtbox control} refuses to start and names the settings to set; with one
 * (a PKCS12 made here by the JDK's keytool, its password in a 0600 file, never on a
 * command line) the pages and the API answer over TLS with that certificate, and plain
 * HTTP on that port gets no page.
 */
class ControlTlsIT {
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    private Mosquitto broker;
    private ControlServer control;

    @AfterEach
    void stop() throws Exception {
        if (control != null) {
            control.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** An IPv4 address of this machine that is not loopback (the interface the factory network is on). */
    private static String siteAddress() throws IOException {
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!n.isUp() || n.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(n.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a.getHostAddress();
                }
            }
        }
        return null;
    }

    @Test
    void boundElsewhereWithoutAKeyStoreItRefusesNamingTheSetting() throws Exception {
        String address = siteAddress();
        Assumptions.assumeTrue(address != null, "this machine has no address but loopback: nothing to bind elsewhere");
        try (Rtbox r = new Rtbox(home)) {
            Rtbox.Result refused = r.run(120, "control", "--bind", address, "--port", "0");
            assertNotEquals(0, refused.exitCode(), refused.stdout() + refused.stderr());
            assertTrue(refused.stderr().contains("serves HTTPS only") && refused.stderr().contains("tlsKeyStore")
                    && refused.stderr().contains("tlsKeyStorePasswordFile"), refused.stderr());
            assertTrue(refused.stderr().contains(address), refused.stderr());
        }
    }

    @Test
    void boundElsewhereWithAKeyStoreThePagesAreServedOverTls() throws Exception {
        String address = siteAddress();
        Assumptions.assumeTrue(address != null, "this machine has no address but loopback: nothing to bind elsewhere");
        Path pw = home.resolve("keystore-password");
        Files.writeString(pw, "ks-" + Long.toHexString(System.nanoTime()) + "\n");
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
        Path ks = home.resolve("control.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "control", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=" + address, "-ext", "SAN=ip:" + address, "-storetype", "PKCS12", "-keystore",
                ks.toString(), "-storepass:file", pw.toString(), "-keypass:file", pw.toString())
                .redirectErrorStream(true).start();
        String said = new String(keytool.getInputStream().readAllBytes());
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, "keytool: " + said);

        broker = new Mosquitto(brokerDir, "a1");
        control = new ControlServer(home, broker, List.of("--bind", address), "tlsKeyStore=" + ks,
                "tlsKeyStorePasswordFile=" + pw);
        assertTrue(String.join("\n", control.process.out).contains("serving https://" + address + ":" + control.port),
                control.process.out.toString());

        // A client that trusts only this key store's certificate.
        KeyStore trust = KeyStore.getInstance("PKCS12");
        char[] secret = Files.readString(pw).strip().toCharArray();
        try (InputStream in = Files.newInputStream(ks)) {
            trust.load(in, secret);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        HttpClient https = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
        String base = "https://" + address + ":" + control.port;
        HttpResponse<String> page = https.send(HttpRequest.newBuilder(URI.create(base + "/ui/login.html")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode(), page.body());
        assertTrue(page.body().contains("<form") || page.body().contains("login"), page.body());
        SSLSession session = page.sslSession().orElseThrow();
        X509Certificate served = (X509Certificate) session.getPeerCertificates()[0];
        assertEquals(((X509Certificate) trust.getCertificate("control")).getSerialNumber(), served.getSerialNumber());
        assertTrue(session.getProtocol().startsWith("TLSv1."), session.getProtocol());
        // The API over TLS: no session, 401 with a JSON error; the log-in works.
        HttpResponse<String> api = https.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/fleet")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, api.statusCode(), api.body());
        HttpResponse<String> login = https.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/session"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"user\":\"admin\",\"password\":\"" + control.adminPassword() + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode(), login.body());
        assertTrue(login.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.contains("Secure")),
                "the session cookie over HTTPS is not Secure: " + login.headers().allValues("Set-Cookie"));
        // Plain HTTP on that port gets no page.
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest clear = HttpRequest.newBuilder(URI.create("http://" + address + ":" + control.port + "/ui/login.html"))
                .timeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> r = plain.send(clear, HttpResponse.BodyHandlers.ofString());
            assertNotEquals(200, r.statusCode(), "a page in clear text: " + r.body());
        } catch (IOException expected) {
            // the TLS server does not speak HTTP: the connection is closed
        }
        // And a client that does not trust the certificate gets no connection.
        assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(base + "/ui/login.html")).build(), HttpResponse.BodyHandlers.ofString()));
    }
}
