package rtbox.workload.blockio.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.Workload;
import rtbox.api.WorkloadHandle;
import rtbox.core.toolkit.Parameters;
import rtbox.os.BlockReader;
import rtbox.os.DiskInfo;
import rtbox.os.Errno;
import rtbox.os.OsException;
import rtbox.os.ThreadSettings;

/**
 * The block-read stressor (seed 002: {@code dd if=/dev/hda of=/dev/null} on a CF
 * card in PIO mode blinded an RT task for 63-300 ms). Reads only: the file is
 * opened O_RDONLY|O_DIRECT and there is no parameter that writes.
 */
@Component(service = Workload.class, property = Workload.NAME + "=blockio", configurationPid = "rtbox.workload.blockio")
@Designate(ocd = BlockIoConfig.class)
public class BlockIoWorkload implements Workload {
    static final List<String> KEYS = List.of("path", "bs", "rate", "wrap", "count", "policy", "priority", "nice", "cpu");
    static final long MIN_BS = 512, MAX_BS = 1024 * 1024;
    private volatile Map<String, Object> defaults = Map.of();

    @Activate
    @Modified
    void configure(BlockIoConfig c) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("path", c.path());
        d.put("bs", c.bs());
        d.put("rate", c.rate());
        d.put("wrap", c.wrap());
        d.put("count", c.count());
        d.put("policy", c.policy());
        d.put("priority", c.priority());
        d.put("nice", c.nice());
        d.put("cpu", c.cpu());
        defaults = d;
    }

    /** What a blockio load was asked for, checked. */
    private record Settings(String path, long bs, double rate, boolean wrap, long count, ThreadSettings threads) {
    }

    /**
     * Checks everything {@link #start} would, the file included (opened O_DIRECT and closed
     * again: its permission, its file system's direct I/O, its size), and starts nothing.
     */
    @Override
    public void validate(Map<String, String> parameters) throws RtboxException {
        Settings s = settings(parameters);
        BlockReader reader = openWhole(s);
        reader.close();
    }

    @Override
    public WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException {
        Settings s = settings(parameters);
        BlockReader reader = openWhole(s);
        long size;
        try {
            size = reader.size();
        } catch (RtboxException e) {
            reader.close();
            throw e;
        }
        DiskInfo disk = DiskInfo.of(s.path());
        if (context != null) {
            context.event("load", "blockio reads " + s.path() + " (" + disk + ")");
        }
        BlockIoRun run = new BlockIoRun(reader, size, s.rate(), s.wrap(), s.count(), s.threads(), disk);
        run.start();
        return run;
    }

    private Settings settings(Map<String, String> parameters) throws RtboxException {
        Parameters p = new Parameters("blockio", defaults, parameters).only(parameters, KEYS);
        String path = p.string("path", "");
        if (path.isEmpty()) {
            throw new RtboxException("path", "blockio: no path: give path=/dev/sda (or a file) to read");
        }
        long bs = p.bytes("bs", 64 * 1024, MIN_BS, MAX_BS);
        if (bs % 512 != 0) {
            throw new RtboxException("bs", "blockio: bs " + bs + " is not a multiple of 512 bytes: O_DIRECT reads "
                    + "whole sectors (use 512, 4k, 64k, 1M)");
        }
        double rate = rate(p.string("rate", "0"));
        String wrapText = p.choice("wrap", "true", "true", "false", "yes", "no", "1", "0");
        boolean wrap = wrapText.equals("true") || wrapText.equals("yes") || wrapText.equals("1");
        long count = p.integer("count", 0, 0, Long.MAX_VALUE / 2);
        ThreadSettings ts = ThreadSettings.parse(p.asMap(), "");
        return new Settings(path, bs, rate, wrap, count, ts);
    }

    /** The file opened, holding at least one block; closed again when it does not. */
    private static BlockReader openWhole(Settings s) throws RtboxException {
        BlockReader reader = open(s.path(), (int) s.bs());
        try {
            long size = reader.size();
            if (size < s.bs()) {
                throw new RtboxException("path", "blockio: " + s.path() + " holds " + size + " bytes, less than one "
                        + "block of " + s.bs() + ": give a larger file or device, or a smaller bs");
            }
            return reader;
        } catch (RtboxException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    private static double rate(String text) throws RtboxException {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.endsWith("mb/s")) {
            t = t.substring(0, t.length() - 4);
        } else if (t.endsWith("m")) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            double r = Double.parseDouble(t);
            if (r < 0 || Double.isNaN(r) || Double.isInfinite(r)) {
                throw new NumberFormatException();
            }
            return r;
        } catch (NumberFormatException e) {
            throw new RtboxException("rate", "blockio: rate '" + text + "' is not a rate in MB/s such as 2 or 0.5 "
                    + "(0: no limit)");
        }
    }

    /** Opens read-only with O_DIRECT, turning the kernel's refusals into what the user should do. */
    static BlockReader open(String path, int bs) throws RtboxException {
        Path p = Path.of(path);
        if (!Files.exists(p)) {
            throw new RtboxException("path", "blockio: " + path + " does not exist");
        }
        if (Files.isDirectory(p)) {
            throw new RtboxException("path", "blockio: " + path + " is a directory: give a block device or a file");
        }
        try {
            return BlockReader.open(path, bs);
        } catch (OsException e) {
            switch (e.errno()) {
                case Errno.EACCES:
                case Errno.EPERM:
                    throw new RtboxException("path", "blockio: no permission to read " + path
                            + " (run as root or join the disk group): " + e.getMessage(), e);
                case Errno.EINVAL:
                    throw new RtboxException("path", "blockio: " + path + " cannot be opened with O_DIRECT (its file "
                            + "system, e.g. tmpfs or overlayfs, does not support direct I/O): " + e.getMessage(), e);
                default:
                    throw new RtboxException("path", "blockio: cannot open " + path + ": " + e.getMessage(), e);
            }
        }
    }
}
