package rtbox.os;

/** Symbolic names of the errno values the calls here can fail with (Linux, x86). */
public final class Errno {
    public static final int EPERM = 1, ENOENT = 2, ESRCH = 3, EINTR = 4, EIO = 5, ENXIO = 6, EBADF = 9,
            EAGAIN = 11, ENOMEM = 12, EACCES = 13, EFAULT = 14, EBUSY = 16, EEXIST = 17, ENODEV = 19,
            EISDIR = 21, EINVAL = 22, ENOTTY = 25, ENOSYS = 38, EOPNOTSUPP = 95;

    private Errno() {
    }

    public static String name(int errno) {
        switch (errno) {
            case EPERM: return "EPERM";
            case ENOENT: return "ENOENT";
            case ESRCH: return "ESRCH";
            case EINTR: return "EINTR";
            case EIO: return "EIO";
            case ENXIO: return "ENXIO";
            case EBADF: return "EBADF";
            case EAGAIN: return "EAGAIN";
            case ENOMEM: return "ENOMEM";
            case EACCES: return "EACCES";
            case EFAULT: return "EFAULT";
            case EBUSY: return "EBUSY";
            case EEXIST: return "EEXIST";
            case ENODEV: return "ENODEV";
            case EISDIR: return "EISDIR";
            case EINVAL: return "EINVAL";
            case ENOTTY: return "ENOTTY";
            case ENOSYS: return "ENOSYS";
            case EOPNOTSUPP: return "EOPNOTSUPP";
            default: return "errno " + errno;
        }
    }
}
