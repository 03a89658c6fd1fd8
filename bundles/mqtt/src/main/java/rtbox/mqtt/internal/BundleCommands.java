package rtbox.mqtt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;

/**
 * Over 400 lines: the four verbs share one path from bytes to the framework (fetch or decode,
 * hash, check the manifest, the lifeline), and the download off the command thread is part of
 * it. Split candidate: the url download (deadline, size limit, failures in words) into its own
 * class when a second user of it appears.
 *
 * <p>The bundle verbs: list, install, update, uninstall. A bundle's bytes (from a URL or
 * inline base64) are written to a file and their SHA-256 compared with the one the
 * command gives before the framework sees them. The framework, this bundle and what
 * it needs to answer (SCR, Config Admin, the bundles it imports from) cannot be
 * updated or removed remotely: a command must not cut the appliance off.
 */
final class BundleCommands {
    private static final long MAX_BYTES = 64L * 1024 * 1024;
    /** The longest a download of a bundle may take, in all (downloadSeconds). */
    private final int downloadSeconds;
    /** The download thread and the one that keeps its deadline (null: downloads on the calling thread). */
    private final java.util.concurrent.ExecutorService downloads;
    private final java.util.concurrent.ScheduledExecutorService deadlines;
    private final java.util.concurrent.atomic.AtomicBoolean downloading = new java.util.concurrent.atomic.AtomicBoolean();
    private static final Set<String> VITAL = Set.of("org.apache.felix.scr", "org.apache.felix.configadmin",
            "org.apache.felix.fileinstall", "rtbox.mqtt");
    private final BundleContext context;
    private final Path dir;
    private final BundleHashes hashes;

    BundleCommands(BundleContext context, Path dataDir, java.util.concurrent.ExecutorService downloads,
            java.util.concurrent.ScheduledExecutorService deadlines, int downloadSeconds) {
        this.downloadSeconds = downloadSeconds;
        this.context = context;
        this.downloads = downloads;
        this.deadlines = deadlines;
        this.dir = dataDir.resolve("incoming");
        this.hashes = new BundleHashes(context);
    }

    Reply list() {
        JsonArray a = new JsonArray();
        for (Bundle b : context.getBundles()) {
            a.add(describe(b));
        }
        JsonObject body = new JsonObject();
        body.add("bundles", a);
        return Reply.ok(a.size() + " bundles", body);
    }

    /** Answers a command whose bundle is downloaded off the command thread: {@code onCommandThread} gives the reply there. */
    interface Later {
        void finish(java.util.function.Supplier<Reply> onCommandThread);
    }

    Reply install(JsonObject c, Later later) throws RtboxException {
        String location = "rtbox-mqtt:" + RunJson.string(c, "sha256", "").toLowerCase(Locale.ROOT);
        return withBundleFile(c, later, file -> installFile(location, file));
    }

    private Reply installFile(String location, Path file) {
        try {
            Bundle existing = context.getBundle(location);
            if (existing != null) {
                return Reply.conflict("these bytes are installed already as bundle " + existing.getBundleId() + " ("
                        + existing.getSymbolicName() + " " + existing.getVersion() + ")");
            }
            Bundle b;
            try (InputStream in = Files.newInputStream(file)) {
                b = context.installBundle(location, in);
            } catch (BundleException e) {
                return Reply.bad("the framework refused the bundle: " + e.getMessage());
            }
            try {
                if (b.getHeaders().get("Fragment-Host") == null) {
                    b.start();
                }
            } catch (BundleException | RuntimeException e) {
                try {
                    b.uninstall();
                } catch (BundleException ignored) {
                    // leave it to the framework
                }
                return Reply.failed("bundle " + b.getSymbolicName() + " " + b.getVersion()
                        + " installed but did not start, so it was removed: " + e.getMessage());
            }
            JsonObject body = describe(b);
            return Reply.ok("installed and started " + b.getSymbolicName() + " " + b.getVersion() + " as bundle "
                    + b.getBundleId(), body);
        } catch (IOException e) {
            return Reply.failed("cannot read the downloaded bundle: " + e.getMessage());
        } finally {
            delete(file);
        }
    }

    Reply update(JsonObject c, Later later) throws RtboxException {
        Bundle b = find(c);
        if (b == null) {
            return lastError.get();
        }
        Reply refused = vital(b, "updated");
        if (refused != null) {
            return refused;
        }
        return withBundleFile(c, later, file -> updateFile(b, file));
    }

    private Reply updateFile(Bundle b, Path file) {
        if (b.getState() == Bundle.UNINSTALLED) {
            delete(file);
            return Reply.conflict("bundle " + b.getBundleId() + " " + b.getSymbolicName() + " was uninstalled while its"
                    + " update was downloaded: not updated");
        }
        String before = b.getVersion().toString();
        String name = symbolicName(file);
        if (!java.util.Objects.equals(b.getSymbolicName(), name)) {
            delete(file);
            return Reply.bad("the jar is bundle " + name + ", not " + b.getSymbolicName() + ": an update must be the"
                    + " same bundle; install it instead");
        }
        try (InputStream in = Files.newInputStream(file)) {
            b.update(in);
        } catch (BundleException e) {
            return Reply.bad("the framework refused the update of " + b.getSymbolicName() + ": " + e.getMessage());
        } catch (IOException e) {
            return Reply.failed("cannot read the downloaded bundle: " + e.getMessage());
        } finally {
            delete(file);
        }
        refresh(b);
        return Reply.ok("updated bundle " + b.getBundleId() + " " + b.getSymbolicName() + " from " + before + " to "
                + b.getVersion(), describe(b));
    }

    Reply uninstall(JsonObject c) throws RtboxException {
        Bundle b = find(c);
        if (b == null) {
            return lastError.get();
        }
        Reply refused = vital(b, "uninstalled");
        if (refused != null) {
            return refused;
        }
        JsonObject body = describe(b);
        try {
            b.uninstall();
        } catch (BundleException e) {
            return Reply.failed("cannot uninstall " + b.getSymbolicName() + ": " + e.getMessage());
        }
        refresh(b);
        return Reply.ok("uninstalled bundle " + b.getBundleId() + " " + b.getSymbolicName(), body);
    }

    /** Why the last find or fetch of this thread gave null: the command thread and the download thread each have theirs. */
    private final ThreadLocal<Reply> lastError = new ThreadLocal<>();

    /** The bundle named by "bundle" (id or symbolic name); null with lastError set if none. */
    private Bundle find(JsonObject c) throws RtboxException {
        // An id may come as a number: a whole one, or a string.
        com.google.gson.JsonElement given = c.get("bundle");
        String name = given != null && given.isJsonPrimitive() && given.getAsJsonPrimitive().isNumber()
                && given.getAsString().matches("\\d{1,18}") ? given.getAsString() : RunJson.string(c, "bundle", null);
        if (name == null || name.isBlank()) {
            lastError.set(Reply.bad("bundle is missing: give its id or symbolic name"));
            return null;
        }
        for (Bundle b : context.getBundles()) {
            if (name.equals(Long.toString(b.getBundleId())) || name.equals(b.getSymbolicName())) {
                return b;
            }
        }
        lastError.set(Reply.notFound("no bundle '" + name + "' is installed"));
        return null;
    }

    private Reply vital(Bundle b, String what) {
        if (b.getBundleId() == 0 || VITAL.contains(b.getSymbolicName()) || b.equals(context.getBundle())
                || providesToUs(b)) {
            return Reply.bad("bundle " + b.getBundleId() + " " + b.getSymbolicName() + " cannot be " + what
                    + " remotely: the appliance needs it to stay reachable");
        }
        return null;
    }

    /**
     * Whether {@code b} is on the appliance's lifeline, computed from the wiring: what this
     * bundle and the bundle running the process's command (the launcher's {@code main.thread}
     * service: rtbox serve) need, through every wire, optional ones included, transitively,
     * and the bundles whose framework services (not rtbox's own) those two use, with what
     * they need in turn. An optional wire counts: removing its provider refreshes the
     * bundle that holds it, and a refreshed SCR (its optional import of the Log Service)
     * stopped every component, the serving command with them: the process ended without a
     * line (issue 31: org.osgi.service.log, org.apache.felix.metatype). rtbox's own services
     * (a workload, a probe) are not followed: they come and go by design.
     */
    private boolean providesToUs(Bundle b) {
        return Lifeline.of(context).contains(b);
    }

    /**
     * The bundle's file, then {@code then} with it. Inline bytes are decoded here; a url is
     * downloaded on the download thread, within {@code downloadSeconds} in all and at most
     * {@link #MAX_BYTES}, and the reply follows ({@link Reply#LATER}): a server that trickles
     * (1 byte every 5 s) held the command thread before, and the appliance answered nothing
     * else, not even {@code status}, for as long. One download at a time.
     */
    private Reply withBundleFile(JsonObject c, Later later, java.util.function.Function<Path, Reply> then)
            throws RtboxException {
        if (!c.has("url") || downloads == null) {
            Path file = fetch(c);
            return file == null ? lastError.get() : then.apply(file);
        }
        if (!downloading.compareAndSet(false, true)) {
            return Reply.conflict("another bundle is being downloaded: send this one again once that one is answered");
        }
        try {
            downloads.execute(() -> {
                Path file = null;
                Reply error;
                try {
                    file = fetch(c);
                    error = file == null ? lastError.get() : null;
                } catch (RtboxException e) {
                    error = Reply.bad(e.getMessage());
                } catch (RuntimeException e) {
                    Appliance.LOG.warn("downloading a bundle failed: {}", String.valueOf(e));
                    error = Reply.failed("the download failed on the appliance (its log says why)");
                } finally {
                    downloading.set(false);
                }
                Path got = file;
                Reply refused = error;
                later.finish(() -> refused != null ? refused : then.apply(got));
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            downloading.set(false);
            return Reply.conflict("the appliance is stopping its MQTT side: send the command again");
        }
        return Reply.LATER;
    }

    /** Downloads or decodes the bundle and checks its SHA-256; null with lastError set on any problem. */
    private Path fetch(JsonObject c) throws RtboxException {
        String sha = RunJson.string(c, "sha256", null);
        if (sha == null || !sha.matches("[0-9a-fA-F]{64}")) {
            lastError.set(Reply.bad(sha == null ? "sha256 is missing: give the bundle's SHA-256 as 64 hex digits"
                    : "sha256 '" + sha + "' is not 64 hex digits"));
            return null;
        }
        String url = RunJson.string(c, "url", null);
        String data = RunJson.string(c, "data", null);
        if ((url == null) == (data == null)) {
            lastError.set(Reply.bad("give the bundle either as \"url\" or as base64 \"data\", one of the two"));
            return null;
        }
        Path file;
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            lastError.set(Reply.failed("this JVM has no SHA-256"));
            return null;
        }
        try {
            Files.createDirectories(dir);
            file = Files.createTempFile(dir, "bundle", ".jar");
        } catch (IOException e) {
            lastError.set(Reply.failed("cannot write to " + dir + ": " + e.getMessage()));
            return null;
        }
        try {
            if (data != null) {
                byte[] bytes;
                try {
                    bytes = Base64.getMimeDecoder().decode(data);
                    if (bytes.length == 0) {
                        // The MIME decoder skips what is not base64: "!!!" read as no bytes at all.
                        throw new IllegalArgumentException("no base64 in it (" + data.length() + " characters)");
                    }
                } catch (IllegalArgumentException e) {
                    delete(file);
                    lastError.set(Reply.bad("data is not base64: " + e.getMessage()));
                    return null;
                }
                md.update(bytes);
                Files.write(file, bytes);
            } else {
                URI uri;
                try {
                    uri = new URI(url);
                } catch (java.net.URISyntaxException e) {
                    delete(file);
                    lastError.set(Reply.bad("url '" + url + "' is not a URL: " + e.getReason()));
                    return null;
                }
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                if (!Set.of("http", "https", "file").contains(scheme)) {
                    delete(file);
                    lastError.set(Reply.bad("url '" + url + "': only http, https and file URLs are fetched"));
                    return null;
                }
                URLConnection conn = uri.toURL().openConnection();
                conn.setConnectTimeout(10_000);
                conn.setReadTimeout(30_000);
                // The overall deadline: a read timeout alone let a server that sends a byte every 5 s go on for good.
                java.util.concurrent.atomic.AtomicBoolean late = new java.util.concurrent.atomic.AtomicBoolean();
                java.util.concurrent.ScheduledFuture<?> deadline = deadlines == null ? null : deadlines.schedule(() -> {
                    late.set(true);
                    if (conn instanceof java.net.HttpURLConnection h) {
                        h.disconnect();
                    }
                }, downloadSeconds, java.util.concurrent.TimeUnit.SECONDS);
                long total = 0;
                try (InputStream in = new DigestInputStream(conn.getInputStream(), md);
                        OutputStream out = Files.newOutputStream(file)) {
                    if (conn.getContentLengthLong() > MAX_BYTES) {
                        delete(file);
                        lastError.set(Reply.tooLarge("the bundle at " + Dispatcher.cut(url, 200) + " is "
                                + conn.getContentLengthLong() + " bytes, more than " + MAX_BYTES + ": not installed"));
                        return null;
                    }
                    byte[] buf = new byte[16384];
                    for (int n; (n = in.read(buf)) > 0;) {
                        total += n;
                        if (total > MAX_BYTES) {
                            delete(file);
                            lastError.set(Reply.tooLarge("the bundle at " + Dispatcher.cut(url, 200) + " is larger than "
                                    + MAX_BYTES + " bytes: not installed"));
                            return null;
                        }
                        if (late.get()) {
                            throw new IOException("late");
                        }
                        out.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    if (late.get()) {
                        delete(file);
                        lastError.set(new Reply(504, "the download from " + Dispatcher.cut(url, 200) + " did not end"
                                + " within " + downloadSeconds + " s (" + total + " bytes came): not installed", new JsonObject()));
                        return null;
                    }
                    throw e;
                } finally {
                    if (deadline != null) {
                        deadline.cancel(false);
                    }
                }
            }
        } catch (IOException e) {
            delete(file);
            lastError.set(Reply.bad("cannot fetch the bundle from " + Dispatcher.cut(String.valueOf(url), 200) + ": "
                    + why(e)));
            return null;
        }
        String got = HexFormat.of().formatHex(md.digest());
        if (!got.equalsIgnoreCase(sha)) {
            delete(file);
            // The hash of bytes the sender sent is theirs; that of a file a url named (file:///etc/shadow) is not.
            lastError.set(Reply.bad("SHA-256 mismatch: the bundle's bytes hash to " + (data != null ? got
                    : "another value") + ", the command says " + sha.toLowerCase(Locale.ROOT) + ": not installed"));
            return null;
        }
        String name = symbolicName(file);
        if (name == null) {
            delete(file);
            lastError.set(Reply.bad("not an OSGi bundle: the jar's manifest has no Bundle-SymbolicName: not installed"));
            return null;
        }
        return file;
    }

    /** What went wrong with a download, in words: no exception's class or library text in a reply. */
    static String why(IOException e) {
        if (e instanceof java.net.ConnectException) {
            return "the connection was refused";
        }
        if (e instanceof java.net.UnknownHostException) {
            return "the host is unknown";
        }
        if (e instanceof java.net.SocketTimeoutException) {
            return "the server did not answer in time";
        }
        if (e instanceof java.io.FileNotFoundException || e instanceof java.nio.file.NoSuchFileException) {
            return "there is nothing at that url (no such file, or HTTP 404)";
        }
        if (e instanceof javax.net.ssl.SSLException) {
            return "the TLS connection failed (the server's certificate?)";
        }
        String m = e.getMessage();
        if (m != null && m.startsWith("Server returned HTTP response code: ")) {
            return "the server answered HTTP " + m.substring(36, Math.min(m.length(), 39));
        }
        return "a read error";
    }

    /** The jar's Bundle-SymbolicName without its directives, or null when it has none (or is no jar). */
    static String symbolicName(Path jar) {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest m = j.getManifest();
            String n = m == null ? null : m.getMainAttributes().getValue("Bundle-SymbolicName");
            return n == null || n.isBlank() ? null : n.split(";")[0].trim();
        } catch (IOException e) {
            return null;
        }
    }

    private void refresh(Bundle b) {
        org.osgi.framework.wiring.FrameworkWiring fw = context.getBundle(0)
                .adapt(org.osgi.framework.wiring.FrameworkWiring.class);
        fw.refreshBundles(java.util.List.of(b));
    }

    /** One bundle as the bundle verbs describe it; {@code sha256} left out when its content cannot be read. */
    JsonObject describe(Bundle b) {
        JsonObject o = new JsonObject();
        o.addProperty("id", b.getBundleId());
        o.addProperty("symbolicName", b.getSymbolicName());
        o.addProperty("version", b.getVersion().toString());
        o.addProperty("state", state(b.getState()));
        o.addProperty("location", b.getLocation());
        String sha = b.getState() == Bundle.UNINSTALLED ? null : hashes.sha256(b);
        if (sha != null) {
            o.addProperty("sha256", sha);
        }
        return o;
    }

    private static String state(int s) {
        switch (s) {
            case Bundle.ACTIVE: return "ACTIVE";
            case Bundle.RESOLVED: return "RESOLVED";
            case Bundle.INSTALLED: return "INSTALLED";
            case Bundle.STARTING: return "STARTING";
            case Bundle.STOPPING: return "STOPPING";
            default: return "UNINSTALLED";
        }
    }

    private static void delete(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            // a temp file left in incoming/ is removed by the next fetch's folder
        }
    }
}
