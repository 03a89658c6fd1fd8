package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.JsonObject;

/**
 * The appliance over TLS to a real mosquitto, with certificates made by openssl for
 * this test (a CA, a server certificate for localhost and 127.0.0.1, a client
 * certificate), configured through Config Admin (etc/rtbox.mqtt.cfg): a plan's result
 * arrives over TLS with a client certificate as the broker's identity of the appliance;
 * with username and password over TLS, a broker whose certificate the configured CA did
 * not sign is refused, with a log line that says so, until the right CA is configured.
 */
class MqttTlsIT extends MqttFixture {
    static final String A = MqttIT.A;
    @TempDir
    Path pki;

    private void control() throws Exception {
        // The control room uses the plain listener: the appliance's side is what is under test.
        control = new ControlRoom(broker.uri(), Mosquitto.CONTROL, Mosquitto.PASSWORD, "rtbox/v1/up/#");
    }

    /** A mosquitto with a TLS listener whose server certificate {@code ca} signed, and the control room on its plain one. */
    private void tlsBroker(Certs certs, Path ca, boolean clientCertificates) throws Exception {
        certs.server("server", "ca");
        broker = new Mosquitto(brokerDir, false, new Mosquitto.Tls(pki.resolve("server.crt"),
                pki.resolve("server.key"), ca, clientCertificates), A);
        control();
    }

    @Test
    void aPlanResultArrivesOverTlsWithAClientCertificate() throws Exception {
        Certs certs = new Certs(pki);
        Path ca = certs.ca("ca");
        Path p12 = certs.client(A, "ca");
        tlsBroker(certs, ca, true);
        rtbox = new Rtbox(home);
        Files.writeString(rtbox.home.resolve("etc/rtbox.mqtt.cfg"), String.join("\n",
                "brokers=" + broker.tlsUri(),
                "appliance=" + A,
                "tlsTrustStore=" + ca,
                "tlsKeyStore=" + p12,
                "tlsKeyStorePassword=" + Certs.PASSWORD,
                "keepAliveSeconds=5",
                ""));
        rtbox.start("serve");
        awaitOnline();
        assertTrue(String.join("\n", rtbox.err).contains("connected to " + broker.tlsUri() + " as a1"), rtbox.err.toString());
        // The broker took the appliance's identity from its certificate (no password was sent).
        assertTrue(broker.log().contains(" as rtbox-a1 ") && broker.log().contains("u'a1'"), broker.log());

        ControlRoom.Received reply = control.reply(A, control.command(A, "plan", "\"plan\":"
                + MqttPlanIT.plan("tls", "1s", "only")), 20_000);
        assertNotNull(reply, "no reply over TLS; stderr: " + rtbox.err);
        assertEquals(200, reply.json().get("code").getAsInt(), reply.payload());
        String run = reply.json().getAsJsonObject("body").get("run").getAsString();
        ControlRoom.Received result = control.await(m -> m.topic().equals("rtbox/v1/up/a1/runs/" + run + "/result"),
                60_000);
        assertNotNull(result, "no result over TLS; stderr: " + rtbox.err);
        JsonObject r = result.json();
        assertEquals("complete", r.get("state").getAsString(), r.toString());
        assertEquals(3, r.get("sequence").getAsLong());
    }

    @Test
    void aBrokerCertificateNotSignedByTheConfiguredCaIsRefused() throws Exception {
        Certs certs = new Certs(pki);
        Path ca = certs.ca("ca");
        Path otherCa = certs.ca("other-ca");
        tlsBroker(certs, ca, false);
        rtbox = new Rtbox(home);
        Path cfg = rtbox.home.resolve("etc/rtbox.mqtt.cfg");
        String config = String.join("\n",
                "brokers=" + broker.tlsUri(),
                "appliance=" + A,
                "username=" + A,
                "password=" + Mosquitto.PASSWORD,
                "tlsTrustStore=" + otherCa,
                "keepAliveSeconds=5",
                "connectTimeoutSeconds=3",
                "");
        Files.writeString(cfg, config);
        rtbox.start("serve");
        String refused = "TLS: the broker's certificate is not signed by a CA in tlsTrustStore";
        long end = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < end && rtbox.err.stream().noneMatch(l -> l.contains(refused))) {
            Thread.sleep(100);
        }
        String log = String.join("\n", rtbox.err);
        assertTrue(log.contains("rtbox.mqtt - cannot connect to " + broker.tlsUri()) && log.contains(refused), log);
        assertNull(control.await(m -> m.topic().equals("rtbox/v1/up/a1/status")
                && m.payload().contains("\"online\""), 2_000), "a1 connected to a broker it must not trust");

        // The right CA, through Config Admin: the appliance connects, with username and password over TLS.
        Files.writeString(cfg, config.replace(otherCa.toString(), ca.toString()));
        awaitOnline();
        JsonObject status = control.reply(A, control.command(A, "status", ""), 10_000).json();
        assertEquals(200, status.get("code").getAsInt());
    }

    @Test
    void ctlListsOverTlsWithItsCaAndRefusesABrokerItsCaDidNotSign() throws Exception {
        Certs certs = new Certs(pki);
        Path ca = certs.ca("ca");
        Path otherCa = certs.ca("other-ca");
        tlsBroker(certs, ca, false);
        rtbox = new Rtbox(home);
        MqttIT.configure(rtbox, broker, A);
        rtbox.start("serve");
        awaitOnline();

        Rtbox.Result list = ctl("list", "--ca=" + ca);
        assertEquals(0, list.exitCode(), list.stdout() + list.stderr());
        assertTrue(list.stdout().contains("a1") && list.stdout().contains("online"), list.stdout());

        Rtbox.Result refused = ctl("list", "--ca=" + otherCa);
        assertEquals(2, refused.exitCode(), refused.stdout() + refused.stderr());
        assertTrue(refused.stderr().contains("cannot connect to " + broker.tlsUri())
                && refused.stderr().contains("not signed by a CA in --ca"), refused.stderr());
    }

    /** rtbox ctl over the broker's TLS listener as the control room, in a home of its own. */
    private Rtbox.Result ctl(String verb, String... options) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("ctl", verb,
                "--broker=" + broker.tlsUri(), "--user=" + Mosquitto.CONTROL, "--password=" + Mosquitto.PASSWORD));
        args.addAll(java.util.List.of(options));
        try (Rtbox c = new Rtbox(Files.createTempDirectory(pki, "ctl"))) {
            return c.run(120, args.toArray(String[]::new));
        }
    }
}
