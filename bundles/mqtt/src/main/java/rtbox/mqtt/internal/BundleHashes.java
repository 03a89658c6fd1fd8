package rtbox.mqtt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The SHA-256 of each installed bundle's jar as the framework holds it, for the
 * {@code bundles} reply and so for the control room's acceptance records: Felix keeps a
 * copy of every bundle it installed from a stream in its storage,
 * {@code bundleID/versionN.R/bundle.jar} (R the newest revision); a bundle installed by
 * reference ({@code reference:file:...}, in {@code revision.location}) is hashed where it
 * lies. Hashed once per bundle id and last-modified time (an update changes the latter),
 * not on every request: a 2 MB jar takes milliseconds, the board's forty of them do not
 * belong in every reply's time. The framework itself (bundle 0) is the jar its classes come
 * from. Null when the content cannot be found (another framework's layout), which the reply
 * then says by leaving {@code sha256} out.
 */
final class BundleHashes {
    private record Key(long id, long lastModified) {
    }

    private final Path storage;
    private final Map<Key, String> cache = new ConcurrentHashMap<>();

    BundleHashes(BundleContext context) {
        this(storage(context));
    }

    BundleHashes(Path storage) {
        this.storage = storage;
    }

    /** The framework's storage folder: its property, else two up from this bundle's data folder. */
    static Path storage(BundleContext context) {
        String p = context.getProperty("org.osgi.framework.storage");
        if (p != null && !p.isBlank()) {
            return Path.of(p);
        }
        java.io.File data = context.getDataFile("");
        return data == null || data.getParentFile() == null ? null : data.toPath().getParent().getParent();
    }

    /** The hex SHA-256 of {@code b}'s content, or null when it cannot be read. */
    String sha256(Bundle b) {
        Key k = new Key(b.getBundleId(), b.getLastModified());
        String known = cache.get(k);
        if (known != null) {
            return known;
        }
        try {
            String sha;
            if (b.getBundleId() == 0) {
                sha = frameworkSha256(b);
            } else {
                Path jar = content(b.getBundleId());
                sha = jar == null ? null : sha256(jar);
            }
            if (sha == null) {
                return null;
            }
            cache.keySet().removeIf(old -> old.id() == k.id());
            cache.put(k, sha);
            return sha;
        } catch (IOException e) {
            return null;
        }
    }

    /** The jar the framework runs bundle {@code id} from: the newest revision's copy or reference. */
    Path content(long id) {
        if (storage == null) {
            return null;
        }
        Path dir = storage.resolve("bundle" + id);
        Path newest = null;
        long[] best = {-1, -1};
        try (Stream<Path> s = Files.list(dir)) {
            for (Path v : (Iterable<Path>) s::iterator) {
                // versionR.N: R counts the bundle's refreshes, N its revisions since.
                String n = v.getFileName().toString();
                int dot = n.indexOf('.');
                if (!n.startsWith("version") || dot < 0) {
                    continue;
                }
                long refresh, rev;
                try {
                    refresh = Long.parseLong(n.substring("version".length(), dot));
                    rev = Long.parseLong(n.substring(dot + 1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (refresh > best[0] || refresh == best[0] && rev > best[1]) {
                    best = new long[] {refresh, rev};
                    newest = v;
                }
            }
        } catch (IOException e) {
            return null;
        }
        if (newest == null) {
            return null;
        }
        Path copy = newest.resolve("bundle.jar");
        if (Files.isRegularFile(copy)) {
            return copy;
        }
        try {
            String location = Files.readString(newest.resolve("revision.location")).strip();
            if (location.startsWith("reference:")) {
                Path referenced = Path.of(URI.create(location.substring("reference:".length())));
                return Files.isRegularFile(referenced) ? referenced : null;
            }
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /**
     * The framework (bundle 0) has no copy in its own storage: its jar is where its classes
     * come from (rtbox.jar's launcher runs Felix's jar as it embeds it).
     */
    private static String frameworkSha256(Bundle system) throws IOException {
        java.security.CodeSource source = system.getClass().getProtectionDomain().getCodeSource();
        URL where = source == null ? null : source.getLocation();
        if (where == null) {
            return null;
        }
        try (InputStream in = where.openStream()) {
            return sha256(in);
        }
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return sha256(in);
        }
    }

    private static String sha256(InputStream in) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("this JVM has no SHA-256", e);
        }
        byte[] buf = new byte[65536];
        for (int n; (n = in.read(buf)) > 0;) {
            md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
