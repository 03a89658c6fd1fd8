package rtbox.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel says about the disk under a file or block device: its name and,
 * where the driver tells it, the transfer mode (PIO or DMA): libata's
 * /sys/class/ata_device/devN.M/xfer_mode, or the old IDE driver's
 * /proc/ide/hdX/settings (using_dma).
 */
public final class DiskInfo {
    /** The whole disk's kernel name (sda, hda, vda, nvme0n1), or null when unknown. */
    public final String disk;
    /** Transfer mode as the kernel words it ("UDMA/133", "PIO4", "PIO (using_dma 0)"), or null. */
    public final String transferMode;

    private DiskInfo(String disk, String transferMode) {
        this.disk = disk;
        this.transferMode = transferMode;
    }

    /** True for a DMA mode, false for PIO, null when the kernel does not say. */
    public Boolean dma() {
        if (transferMode == null) {
            return null;
        }
        return transferMode.toUpperCase(java.util.Locale.ROOT).contains("DMA") && !transferMode.contains("using_dma 0");
    }

    public static DiskInfo of(String path) {
        try {
            Path p = Path.of(path);
            boolean device = !Files.isRegularFile(p);
            long dev = ((Number) Files.getAttribute(p, device ? "unix:rdev" : "unix:dev")).longValue();
            long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
            long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
            Path sys = Path.of("/sys/dev/block/" + major + ":" + minor).toRealPath();
            if (Files.exists(sys.resolve("partition"))) {
                sys = sys.getParent();
            }
            String disk = sys.getFileName().toString();
            return new DiskInfo(disk, mode(disk, sys));
        } catch (IOException | RuntimeException e) {
            return new DiskInfo(null, null);
        }
    }

    private static String mode(String disk, Path sys) throws IOException {
        Path ide = Path.of("/proc/ide", disk, "settings");
        if (Files.isReadable(ide)) {
            for (String line : Files.readAllLines(ide)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 1 && f[0].equals("using_dma")) {
                    return f[1].equals("0") ? "PIO (using_dma 0)" : "DMA (using_dma " + f[1] + ")";
                }
            }
        }
        Matcher m = Pattern.compile("/ata(\\d+)/").matcher(sys.toString());
        if (m.find()) {
            Matcher t = Pattern.compile("/target\\d+:\\d+:(\\d+)/").matcher(sys.toString());
            String id = t.find() ? t.group(1) : "0";
            Path x = Path.of("/sys/class/ata_device/dev" + m.group(1) + "." + id, "xfer_mode");
            if (Files.isReadable(x)) {
                return Files.readString(x).trim();
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return (disk == null ? "unknown disk" : disk) + (transferMode == null ? "" : ", transfer mode " + transferMode);
    }
}
