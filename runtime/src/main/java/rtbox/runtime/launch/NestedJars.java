package rtbox.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

/**
 * The jars that bnd's export embedded in rtbox.jar ({@code jar/...}): the run path
 * (manifest header {@code Embedded-Runpath}: SLF4J, the framework's jar, bnd's launcher)
 * and the bundles in their start order ({@code launch.bundles} in launcher.properties),
 * and each one as a file in a cache folder, where a plain class loader can read it.
 *
 * <p>A cached copy is named after its CRC-32 in rtbox.jar's directory, so a rebuilt jar
 * gets a new copy and a copy is never read half written (it is written beside and
 * renamed). The folder must be the user's own and writable by nobody else: its jars
 * are loaded as code.
 */
final class NestedJars {
    private final JarFile outer;
    private final List<String> runpath = new ArrayList<>();
    private final List<String> bundles = new ArrayList<>();
    private final Properties launch = new Properties();
    private final Manifest manifest;

    NestedJars(Path rtboxJar) throws IOException {
        outer = new JarFile(rtboxJar.toFile(), false);
        manifest = outer.getManifest();
        String rp = manifest.getMainAttributes().getValue("Embedded-Runpath");
        for (String p : split(rp)) {
            runpath.add(p);
        }
        ZipEntry lp = outer.getEntry("launcher.properties");
        if (lp == null) {
            throw new IOException(rtboxJar + " has no launcher.properties: not an exported bndrun");
        }
        try (InputStream in = outer.getInputStream(lp)) {
            launch.load(in);
        }
        for (String b : split(launch.getProperty("launch.bundles"))) {
            bundles.add(b);
        }
    }

    private static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (String s : list.split("\\s*,\\s*")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        }
        return out;
    }

    /** launcher.properties: the framework's properties (-runproperties) and bnd's launch.* settings. */
    Properties launch() {
        return launch;
    }

    /** The embedded run path's jars, as {@code jar/NAME.jar}. */
    List<String> runpath() {
        return runpath;
    }

    /** The embedded bundles in start order, as {@code jar/NAME.jar}: also their locations in the framework. */
    List<String> bundles() {
        return bundles;
    }

    /**
     * The bundles by location, each with its {@code SHA-256-Digest} in rtbox.jar's manifest
     * ({@code -digests} in cnf/appliance.bnd), or null where the manifest has none.
     */
    Map<String, String> digests() {
        Map<String, String> out = new HashMap<>();
        for (String b : bundles) {
            Attributes a = manifest.getAttributes(b);
            out.put(b, a == null ? null : a.getValue("SHA-256-Digest"));
        }
        return out;
    }

    /** The entry as a file in {@code cache}, copied there if it is not yet. */
    Path extract(String entry, Path cache) throws IOException {
        ZipEntry e = outer.getEntry(entry);
        if (e == null) {
            throw new IOException("rtbox.jar has no " + entry);
        }
        String name = Path.of(entry).getFileName().toString();
        Path file = cache.resolve(String.format(Locale.ROOT, "%08x-%s", e.getCrc(), name));
        if (Files.isRegularFile(file) && Files.size(file) == e.getSize()) {
            return file;
        }
        Path part = Files.createTempFile(cache, name, ".part");
        try (InputStream in = outer.getInputStream(e)) {
            Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(part);
        }
        // Copies from an earlier rtbox.jar are of no further use.
        try (DirectoryStream<Path> old = Files.newDirectoryStream(cache, "*-" + name)) {
            for (Path o : old) {
                if (!o.equals(file) && o.getFileName().toString().length() == 9 + name.length()) {
                    Files.deleteIfExists(o);
                }
            }
        }
        return file;
    }

    /** The cache folder, made if missing; refused if another user could write into it. */
    static Path cache(Path dir) throws IOException {
        Files.createDirectories(dir);
        if (!Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " belongs to " + Files.getOwner(dir).getName());
        }
        Set<PosixFilePermission> p = Files.getPosixFilePermissions(dir);
        if (p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(dir + " is writable by others");
        }
        return dir;
    }
}
