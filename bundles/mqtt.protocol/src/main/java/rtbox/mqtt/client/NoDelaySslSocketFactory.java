package rtbox.mqtt.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;

import javax.net.ssl.SSLSocketFactory;

/**
 * A TLS socket factory whose sockets send at once (TCP_NODELAY). Paho writes a PUBLISH in two
 * writes, header then payload; with Nagle's algorithm the second waits for the broker's delayed
 * ACK of the first, about 40 ms on Linux, on every result (bench/mqtt). Paho 1.2 makes its TLS
 * socket with {@link #createSocket()} and connects it itself.
 */
public final class NoDelaySslSocketFactory extends SSLSocketFactory {
    private final SSLSocketFactory tls;

    public NoDelaySslSocketFactory(SSLSocketFactory tls) {
        this.tls = tls;
    }

    private static Socket noDelay(Socket socket) throws IOException {
        socket.setTcpNoDelay(true);
        return socket;
    }

    @Override
    public Socket createSocket() throws IOException {
        return noDelay(tls.createSocket());
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
        return noDelay(tls.createSocket(s, host, port, autoClose));
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return noDelay(tls.createSocket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return noDelay(tls.createSocket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return noDelay(tls.createSocket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return noDelay(tls.createSocket(address, port, localAddress, localPort));
    }

    @Override
    public String[] getDefaultCipherSuites() {
        return tls.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return tls.getSupportedCipherSuites();
    }
}
