package rtbox.cli.internal;

import java.io.FileOutputStream;
import java.io.IOException;

/**
 * cyclictest's {@code --latency}: writes a PM QoS target (microseconds, a binary 32-bit
 * int) to /dev/cpu_dma_latency and holds the file open, which is what keeps the request in
 * force (the kernel drops it when the file is closed); closed at the end of the run. Like
 * cyclictest, rtbox run asks for 0 by default (no deep C-states while measuring), so that
 * figures side by side with cyclictest's are like for like; {@code --laptop} leaves it alone.
 */
final class CpuDmaLatency implements AutoCloseable {
    static final String DEVICE = "/dev/cpu_dma_latency";
    private final FileOutputStream out;

    private CpuDmaLatency(FileOutputStream out) {
        this.out = out;
    }

    /** Holds {@code us} in force until {@link #close}. */
    static CpuDmaLatency hold(int us) throws IOException {
        FileOutputStream f = new FileOutputStream(DEVICE);
        try {
            // The kernel reads the value in the machine's byte order; every board rtbox runs on is little-endian.
            f.write(new byte[] {(byte) us, (byte) (us >>> 8), (byte) (us >>> 16), (byte) (us >>> 24)});
            f.flush();
        } catch (IOException e) {
            f.close();
            throw e;
        }
        return new CpuDmaLatency(f);
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            // Closing is what ends the request; a failing close has nothing left to undo.
        }
    }
}
