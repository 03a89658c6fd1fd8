package rtbox.mqtt.client;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import javax.net.SocketFactory;

/**
 * The broker's byte stream as Paho reads it, with every PUBLISH packet larger than the
 * limit shrunk on the way: its topic and packet id kept, its payload replaced by
 * {@link #MARKER}, the original payload size, a newline and the payload's first
 * {@link #HEAD_BYTES} bytes; the rest is read and dropped as it arrives. Paho reads a
 * packet whole into one array and copies it again (a 12 MB command was an
 * OutOfMemoryError in Paho's receiver thread, never acknowledged, so the broker sent it
 * again at every reconnect); this way Paho holds a few hundred bytes, acknowledges the
 * packet as usual, and the appliance's Link answers it 413.
 *
 * <p>Resumable: Paho reads with a 1 s socket timeout and reads again after one; every
 * byte taken from the socket is accounted for in this object's state before the next read,
 * so a timeout between reads loses nothing. Plain TCP only: over TLS the broker's limit
 * (mosquitto {@code max_packet_size}) and the Link's size check are what bound a command.
 */
public final class OversizedPublish extends FilterInputStream {
    /** How many of a shrunk payload's first bytes are kept (for the request id in a 413 answer). */
    public static final int HEAD_BYTES = 512;
    /** The start of a shrunk payload: a NUL, which no JSON command starts with. */
    static final byte[] MARKER = "\0rtbox-oversized ".getBytes(StandardCharsets.US_ASCII);

    private enum State { TYPE, LENGTH, VARIABLE_HEADER, HEAD, SKIP }

    private final long limit;
    private State state = State.TYPE;
    private byte[] out = new byte[0];
    private int outPos;
    private long passThrough;
    private int firstByte;
    private long remaining;
    private long multiplier;
    private final ByteArrayOutputStream header = new ByteArrayOutputStream();
    private final ByteArrayOutputStream variable = new ByteArrayOutputStream();
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private int variableLength;
    private long payloadLength;
    private long skip;
    private final byte[] scratch = new byte[8192];

    OversizedPublish(InputStream in, long limit) {
        super(in);
        this.limit = limit;
    }

    /** A socket factory whose sockets read through this filter. */
    public static SocketFactory factory(long limit) {
        return new SocketFactory() {
            @Override
            public Socket createSocket() throws IOException {
                Socket socket = new Socket() {
                    private InputStream filtered;

                    @Override
                    public synchronized InputStream getInputStream() throws IOException {
                        if (filtered == null) {
                            filtered = new OversizedPublish(super.getInputStream(), limit);
                        }
                        return filtered;
                    }
                };
                // Paho writes a PUBLISH in two writes (header, then payload): with Nagle's algorithm
                // the second waits for the broker's delayed ACK of the first, 40 ms on Linux.
                socket.setTcpNoDelay(true);
                return socket;
            }

            @Override
            public Socket createSocket(String host, int port) throws IOException {
                Socket s = createSocket();
                s.connect(new java.net.InetSocketAddress(host, port));
                return s;
            }

            @Override
            public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
                Socket s = createSocket();
                s.bind(new java.net.InetSocketAddress(localHost, localPort));
                s.connect(new java.net.InetSocketAddress(host, port));
                return s;
            }

            @Override
            public Socket createSocket(InetAddress host, int port) throws IOException {
                Socket s = createSocket();
                s.connect(new java.net.InetSocketAddress(host, port));
                return s;
            }

            @Override
            public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                    throws IOException {
                Socket s = createSocket();
                s.bind(new java.net.InetSocketAddress(localAddress, localPort));
                s.connect(new java.net.InetSocketAddress(address, port));
                return s;
            }
        };
    }

    /** The original size when {@code payload} is a shrunk one, else -1. */
    public static long originalSize(byte[] payload) {
        if (payload.length < MARKER.length || !java.util.Arrays.equals(payload, 0, MARKER.length, MARKER, 0,
                MARKER.length)) {
            return -1;
        }
        long n = 0;
        for (int i = MARKER.length; i < payload.length && payload[i] != '\n'; i++) {
            n = n * 10 + (payload[i] - '0');
        }
        return n;
    }

    /** The first bytes of the original payload that a shrunk one carries. */
    public static byte[] head(byte[] payload) {
        for (int i = MARKER.length; i < payload.length; i++) {
            if (payload[i] == '\n') {
                return java.util.Arrays.copyOfRange(payload, i + 1, payload.length);
            }
        }
        return new byte[0];
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (true) {
            if (outPos < out.length) {
                int n = Math.min(len, out.length - outPos);
                System.arraycopy(out, outPos, b, off, n);
                outPos += n;
                return n;
            }
            if (passThrough > 0) {
                int n = in.read(b, off, (int) Math.min(len, passThrough));
                if (n > 0) {
                    passThrough -= n;
                }
                return n;
            }
            if (!step()) {
                return -1;
            }
        }
    }

    @Override
    public int available() throws IOException {
        return out.length - outPos + (passThrough > 0 ? (int) Math.min(passThrough, in.available()) : 0);
    }

    @Override
    public long skip(long n) throws IOException {
        throw new IOException("skip is not supported on the MQTT stream");
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /** Takes what the socket has for the packet being read; false at the end of the stream. */
    private boolean step() throws IOException {
        switch (state) {
            case TYPE: {
                int b = in.read();
                if (b < 0) {
                    return false;
                }
                firstByte = b;
                header.reset();
                header.write(b);
                remaining = 0;
                multiplier = 1;
                state = State.LENGTH;
                return true;
            }
            case LENGTH: {
                int b = in.read();
                if (b < 0) {
                    return false;
                }
                header.write(b);
                remaining += (b & 127) * multiplier;
                multiplier *= 128;
                if ((b & 128) == 0) {
                    if ((firstByte >> 4) == 3 && remaining > limit) {
                        variable.reset();
                        variableLength = -1;
                        state = State.VARIABLE_HEADER;
                    } else {
                        emit(header.toByteArray());
                        passThrough = remaining;
                        state = State.TYPE;
                    }
                }
                return true;
            }
            case VARIABLE_HEADER: {
                int b = in.read();
                if (b < 0) {
                    return false;
                }
                variable.write(b);
                if (variable.size() == 2) {
                    byte[] v = variable.toByteArray();
                    int qos = (firstByte >> 1) & 3;
                    variableLength = 2 + (((v[0] & 0xff) << 8) | (v[1] & 0xff)) + (qos > 0 ? 2 : 0);
                }
                if (variableLength >= 0 && variable.size() == variableLength) {
                    payloadLength = remaining - variableLength;
                    head.reset();
                    state = State.HEAD;
                }
                return true;
            }
            case HEAD: {
                int want = (int) Math.min(HEAD_BYTES, payloadLength) - head.size();
                if (want > 0) {
                    int n = in.read(scratch, 0, want);
                    if (n < 0) {
                        return false;
                    }
                    head.write(scratch, 0, n);
                    return true;
                }
                skip = payloadLength - head.size();
                state = State.SKIP;
                return true;
            }
            case SKIP: {
                if (skip > 0) {
                    int n = in.read(scratch, 0, (int) Math.min(scratch.length, skip));
                    if (n < 0) {
                        return false;
                    }
                    skip -= n;
                    return true;
                }
                ByteArrayOutputStream payload = new ByteArrayOutputStream();
                payload.writeBytes(MARKER);
                payload.writeBytes(Long.toString(payloadLength).getBytes(StandardCharsets.US_ASCII));
                payload.write('\n');
                payload.writeBytes(head.toByteArray());
                ByteArrayOutputStream packet = new ByteArrayOutputStream();
                packet.write(firstByte);
                long length = variable.size() + payload.size();
                do {
                    int digit = (int) (length % 128);
                    length /= 128;
                    packet.write(length > 0 ? digit | 128 : digit);
                } while (length > 0);
                packet.writeBytes(variable.toByteArray());
                packet.writeBytes(payload.toByteArray());
                emit(packet.toByteArray());
                state = State.TYPE;
                return true;
            }
            default:
                throw new IllegalStateException(state.toString());
        }
    }

    private void emit(byte[] bytes) {
        out = bytes;
        outPos = 0;
    }
}
