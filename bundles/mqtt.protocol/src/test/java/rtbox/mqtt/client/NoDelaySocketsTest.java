package rtbox.mqtt.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.Test;

/**
 * The appliance's sockets to the broker, plain and TLS, send without Nagle's delay: connected as
 * Paho connects them (an unconnected socket from the factory, then connect), they have TCP_NODELAY.
 * Without it a result waited for the broker's delayed ACK (p50 62-76 ms in bench/mqtt).
 */
class NoDelaySocketsTest {
    @Test
    void plainSocketsSendAtOnce() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket s = OversizedPublish.factory(1 << 20).createSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            assertTrue(s.getTcpNoDelay(), "TCP_NODELAY on the plain socket");
        }
    }

    /** The control room's and rtbox ctl's clients over tcp:// name no factory: theirs send at once too. */
    @Test
    void optionsWithoutFactoryGiveSocketsThatSendAtOnce() throws Exception {
        javax.net.SocketFactory f = new ClientOptions("tcp://127.0.0.1:1883", null, null, null, 30, 10).v3()
                .getSocketFactory();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()); Socket s = f.createSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            assertTrue(s.getTcpNoDelay(), "TCP_NODELAY on the default plain socket");
        }
    }

    @Test
    void tlsSocketsSendAtOnce() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, null, null);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket s = new NoDelaySslSocketFactory(tls.getSocketFactory()).createSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            assertTrue(s.getTcpNoDelay(), "TCP_NODELAY on the TLS socket");
        }
    }
}
