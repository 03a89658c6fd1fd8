package rtbox.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy on loopback that can stop forwarding without closing anything, as a
 * cut cable or a dead NAT entry does: bytes go in and nothing comes out. Connections
 * made while it forwards again work; the ones cut stay dead.
 */
final class Blackhole implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private volatile int epoch;
    private volatile boolean forwarding = true;
    private final List<Socket> sockets = new ArrayList<>();

    Blackhole(int targetPort) throws IOException {
        this.target = targetPort;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "blackhole-accept");
        t.setDaemon(true);
        t.start();
    }

    String uri() {
        return "tcp://127.0.0.1:" + server.getLocalPort();
    }

    void cut() {
        forwarding = false;
        epoch++;
    }

    void restore() {
        forwarding = true;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                synchronized (sockets) {
                    sockets.add(in);
                    sockets.add(out);
                }
                int mine = epoch;
                pump(in.getInputStream(), out.getOutputStream(), mine);
                pump(out.getInputStream(), in.getOutputStream(), mine);
            } catch (IOException e) {
                // closed, or the broker refused: the client sees its connection end
            }
        }
    }

    private void pump(InputStream from, OutputStream to, int mine) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = from.read(buf)) > 0;) {
                    if (forwarding && epoch == mine) {
                        to.write(buf, 0, n);
                        to.flush();
                    }
                }
            } catch (IOException e) {
                // either side closed
            }
        }, "blackhole-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
