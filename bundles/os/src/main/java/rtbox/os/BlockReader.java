package rtbox.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

import rtbox.os.internal.LibCIo;

/**
 * A file or block device opened read-only with O_DIRECT, and one buffer aligned for
 * it. Reads go straight to the device (no page cache), which is what a PIO-mode CF
 * card read looks like to the rest of the machine. There is no way to write through
 * this class: the file is opened O_RDONLY and nothing else.
 *
 * <p>{@link #read(long)} allocates nothing; one thread at a time may call it.
 */
public final class BlockReader implements AutoCloseable {
    private final String path;
    private final int blockSize;
    private final NativeLong count;
    private final Pointer buffer;
    private int fd;

    private BlockReader(String path, int fd, Pointer buffer, int blockSize) {
        this.path = path;
        this.fd = fd;
        this.buffer = buffer;
        this.blockSize = blockSize;
        this.count = new NativeLong(blockSize);
    }

    /**
     * Opens {@code path} with O_RDONLY|O_DIRECT and allocates a buffer of
     * {@code blockSize} bytes aligned to 4096 (enough for any logical block size).
     */
    public static BlockReader open(String path, int blockSize) throws OsException {
        if (blockSize < 512 || (blockSize & 511) != 0) {
            throw new OsException("open(" + path + ")", Errno.EINVAL, "block size " + blockSize
                    + " is not a multiple of 512 bytes: O_DIRECT reads need sector-aligned sizes");
        }
        int fd = Native.call("open(" + path + ", O_RDONLY|O_DIRECT)",
                () -> LibCIo.open(path, LibCIo.O_RDONLY | LibCIo.O_DIRECT | LibCIo.O_CLOEXEC));
        Pointer buffer;
        int rc;
        try (com.sun.jna.Memory out = new com.sun.jna.Memory(com.sun.jna.Native.POINTER_SIZE)) {
            rc = LibCIo.posix_memalign(out, new NativeLong(4096), new NativeLong(blockSize));
            buffer = rc == 0 ? out.getPointer(0) : null;
        }
        if (rc != 0) {
            LibCIo.close(fd);
            throw Native.failure("posix_memalign(4096, " + blockSize + ")", rc);
        }
        return new BlockReader(path, fd, buffer, blockSize);
    }

    /** Size in bytes of the file or device (lseek to its end). */
    public long size() throws OsException {
        try {
            return LibCIo.lseek64(fd, 0, 2);
        } catch (LastErrorException e) {
            throw Native.failure("lseek64(" + path + ", 0, SEEK_END)", e.getErrorCode());
        }
    }

    public String path() {
        return path;
    }

    public int blockSize() {
        return blockSize;
    }

    /**
     * pread64 of one block at {@code offset}: returns the bytes read (0 at the end,
     * fewer than a block for a file's tail) or a negative errno.
     */
    public int read(long offset) {
        try {
            return LibCIo.pread64(fd, buffer, count, offset);
        } catch (LastErrorException e) {
            return -e.getErrorCode();
        }
    }

    /** Describes a negative value returned by {@link #read(long)}. */
    public OsException failure(int negativeErrno, long offset) {
        return Native.failure("pread(" + path + ", " + blockSize + " bytes at " + offset + ")", -negativeErrno);
    }

    /** Closes the file and frees the buffer; a second call does nothing. */
    @Override
    public synchronized void close() {
        if (fd >= 0) {
            try {
                LibCIo.close(fd);
            } catch (LastErrorException e) {
                // Nothing useful to do: the descriptor is gone either way.
            }
            LibCIo.free(buffer);
            fd = -1;
        }
    }
}
