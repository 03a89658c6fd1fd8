package rtbox.os;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * A preallocated struct timespec. time_t and long are 4 bytes on i386 and 8 on
 * x86_64, so the layout follows {@link Native#LONG_SIZE}.
 */
final class Timespec {
    private static final boolean WIDE = Native.LONG_SIZE == 8;
    final Memory memory = new Memory(16);

    void set(long nanos) {
        long sec = nanos / 1_000_000_000L;
        long nsec = nanos - sec * 1_000_000_000L;
        if (WIDE) {
            memory.setLong(0, sec);
            memory.setLong(8, nsec);
        } else {
            memory.setInt(0, (int) sec);
            memory.setInt(4, (int) nsec);
        }
    }

    long get() {
        if (WIDE) {
            return memory.getLong(0) * 1_000_000_000L + memory.getLong(8);
        }
        return (memory.getInt(0) & 0xffffffffL) * 1_000_000_000L + memory.getInt(4);
    }

    Pointer pointer() {
        return memory;
    }
}
