package rtbox.mqtt.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;

import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the shared layer sets on Paho's options for every client, and the password file. */
class ClientOptionsTest {

    @Test
    void setsBrokersCredentialsAndTimers() {
        MqttConnectOptions o = new ClientOptions(" tcp://a:1883 , tcp://b:1883", "control", "pw", null, 30, 10).v3();
        assertArrayEquals(new String[] {"tcp://a:1883", "tcp://b:1883"}, o.getServerURIs());
        assertEquals("control", o.getUserName());
        assertEquals("pw", new String(o.getPassword()));
        assertEquals(30, o.getKeepAliveInterval());
        assertEquals(10, o.getConnectionTimeout());
    }

    @Test
    void aBlankUserIsNone() {
        MqttConnectOptions o = new ClientOptions("tcp://a:1883", " ", null, null, 60, 10).v3();
        assertNull(o.getUserName());
        assertNull(o.getPassword());
    }

    @Test
    void tlsSocketsSendAtOnceAndVerifyTheHost() throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        SocketFactory tls = ClientOptions.tls(ctx);
        MqttConnectOptions o = new ClientOptions("ssl://a:8883", null, null, tls, 60, 10).v3();
        assertSame(tls, o.getSocketFactory());
        assertTrue(o.getSocketFactory() instanceof NoDelaySslSocketFactory);
        assertTrue(o.isHttpsHostnameVerificationEnabled());
        assertTrue(ClientOptions.overTls("tcp://a:1883, ssl://b:8883"));
        assertFalse(ClientOptions.overTls("tcp://a:1883"));
    }

    @Test
    void thePasswordFileGivesItsFirstLineAndNamesTheSettingWhenUnreadable(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("password");
        Files.writeString(f, "  secret \nsecond\n");
        assertEquals("secret", Clients.passwordFile("passwordFile", f.toString()));
        assertNull(Clients.passwordFile("passwordFile", " "));
        IOException e = assertThrows(IOException.class,
                () -> Clients.passwordFile("--password-file", dir.resolve("none").toString()));
        assertTrue(e.getMessage().startsWith("--password-file "), e.getMessage());
    }
}
