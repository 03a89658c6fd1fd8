package rtbox.mqtt.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * The wire filter: a PUBLISH over the limit comes out small (topic and packet id kept,
 * size and head in the payload), everything else byte for byte, also when the socket
 * gives a few bytes at a time and times out between reads, as Paho's does.
 */
class OversizedPublishTest {
    private static byte[] publish(int qos, String topic, int packetId, byte[] payload) {
        ByteArrayOutputStream v = new ByteArrayOutputStream();
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        v.write(t.length >> 8);
        v.write(t.length & 0xff);
        v.writeBytes(t);
        if (qos > 0) {
            v.write(packetId >> 8);
            v.write(packetId & 0xff);
        }
        v.writeBytes(payload);
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(0x30 | (qos << 1));
        long length = v.size();
        do {
            int digit = (int) (length % 128);
            length /= 128;
            p.write(length > 0 ? digit | 128 : digit);
        } while (length > 0);
        p.writeBytes(v.toByteArray());
        return p.toByteArray();
    }

    /** Gives at most 7 bytes a read and times out before every other read. */
    private static InputStream stingy(byte[] data) {
        return new InputStream() {
            final ByteArrayInputStream in = new ByteArrayInputStream(data);
            int calls;

            @Override
            public int read() throws IOException {
                if (calls++ % 2 == 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (calls++ % 2 == 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                return in.read(b, off, Math.min(len, 7));
            }
        };
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[5];
        while (true) {
            int n;
            try {
                n = in.read(buf, 0, buf.length);
            } catch (SocketTimeoutException e) {
                continue;
            }
            if (n < 0) {
                return out.toByteArray();
            }
            out.write(buf, 0, n);
        }
    }

    @Test
    void aLargePublishIsShrunkAndTheRestPassesAsIs() throws Exception {
        byte[] connack = {0x20, 0x02, 0x00, 0x00};
        byte[] small = publish(1, "rtbox/v1/down/a1/cmd/status", 7, "{\"requestId\":\"s\"}".getBytes());
        byte[] bigPayload = new byte[300_000];
        java.util.Arrays.fill(bigPayload, (byte) 'x');
        byte[] start = "{\"requestId\":\"big\",".getBytes();
        System.arraycopy(start, 0, bigPayload, 0, start.length);
        byte[] big = publish(1, "rtbox/v1/down/a1/cmd/run", 8, bigPayload);
        byte[] pingresp = {(byte) 0xd0, 0x00};
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.writeBytes(connack);
        wire.writeBytes(small);
        wire.writeBytes(big);
        wire.writeBytes(pingresp);
        wire.writeBytes(small);

        byte[] got = readAll(new OversizedPublish(stingy(wire.toByteArray()), 100_000));

        ByteArrayOutputStream shrunkPayload = new ByteArrayOutputStream();
        shrunkPayload.writeBytes(OversizedPublish.MARKER);
        shrunkPayload.writeBytes("300000\n".getBytes());
        shrunkPayload.writeBytes(java.util.Arrays.copyOf(bigPayload, OversizedPublish.HEAD_BYTES));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(connack);
        expected.writeBytes(small);
        expected.writeBytes(publish(1, "rtbox/v1/down/a1/cmd/run", 8, shrunkPayload.toByteArray()));
        expected.writeBytes(pingresp);
        expected.writeBytes(small);
        assertArrayEquals(expected.toByteArray(), got);

        byte[] p = shrunkPayload.toByteArray();
        assertEquals(300_000, OversizedPublish.originalSize(p));
        assertArrayEquals(java.util.Arrays.copyOf(bigPayload, OversizedPublish.HEAD_BYTES), OversizedPublish.head(p));
        assertEquals(-1, OversizedPublish.originalSize("{\"requestId\":\"s\"}".getBytes()));
    }
}
