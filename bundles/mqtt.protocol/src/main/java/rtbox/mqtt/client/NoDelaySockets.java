package rtbox.mqtt.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;

import javax.net.SocketFactory;

/**
 * Plain sockets that send at once (TCP_NODELAY): what {@link ClientOptions} gives a client that
 * names no socket factory (the control room and {@code rtbox ctl} over {@code tcp://}). Paho writes
 * a PUBLISH as header then payload; with Nagle's algorithm the payload waits for the broker's
 * delayed ACK of the header, about 40 ms on every command. Paho makes the socket with
 * {@link #createSocket()} and connects it itself.
 */
final class NoDelaySockets extends SocketFactory {
    static final NoDelaySockets INSTANCE = new NoDelaySockets();

    private NoDelaySockets() {
    }

    private static Socket noDelay(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        return s;
    }

    @Override
    public Socket createSocket() throws IOException {
        return noDelay(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return noDelay(new Socket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return noDelay(new Socket(address, port, localAddress, localPort));
    }
}
