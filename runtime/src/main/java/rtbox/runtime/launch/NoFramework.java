package rtbox.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * rtbox's commands that need no framework (help, version, plan check), answered from the
 * bundles' own classes on a plain class path: the launcher script runs this class (in
 * rtbox.jar, beside bnd's launcher) for them, without the framework's start-up (issue 15;
 * bench/startup). The command line is rtbox.cli's own {@code Cli} component, wired as its
 * DS description says ({@link Components}), so the help, the version and the
 * plan checks are the very same code and text as with the framework.
 *
 * <p>Exits {@value #NEEDS_FRAMEWORK}, having printed nothing, when the answer could differ
 * from the framework's: the command measures or serves (Cli decides, on the parsed line),
 * a bundle is installed beyond rtbox.jar's own (dropped into a FileInstall folder, or sent
 * over MQTT and kept in the framework storage), one of rtbox.jar's was updated in the storage
 * (over MQTT), or something here fails. The script then
 * starts the framework as before.
 */
public final class NoFramework {
    /** As rtbox.cli's {@code Cli.NEEDS_FRAMEWORK}: start the framework and ask it. */
    static final int NEEDS_FRAMEWORK = 75;
    /**
     * A file's modification time comes from the kernel's coarse clock, up to a tick (10 ms at
     * HZ=100) behind the clock Felix stamps a bundle's last modification with, so the launcher's
     * record, written just after its install, may look that much older. An update over MQTT
     * comes later than that: rtbox.mqtt starts after every bundle is installed.
     */
    private static final long CLOCK_SLACK_MS = 20;

    private NoFramework() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (Exception | LinkageError e) {
            if (Boolean.getBoolean("rtbox.launch.trace")) {
                e.printStackTrace();
            }
            code = NEEDS_FRAMEWORK;
        }
        System.exit(code);
    }

    private static int run(String[] args) throws Exception {
        Path rtboxJar = Path.of(NoFramework.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        NestedJars nested = new NestedJars(rtboxJar);
        String storage = System.getProperty("launch.storage.dir");
        Path home = Path.of(System.getProperty("rtbox.home", "."));
        String installed = beyondRtboxJar(storage == null ? null : Path.of(storage), home, nested.digests());
        if (installed != null) {
            if (Boolean.getBoolean("rtbox.launch.trace")) {
                System.err.println("rtbox.launch: the framework answers: " + installed);
            }
            return NEEDS_FRAMEWORK;
        }
        // The run properties, as bnd's launcher sets them: SLF4J's simple logger reads its settings there.
        for (String k : nested.launch().stringPropertyNames()) {
            if (!k.startsWith("launch.") && System.getProperty(k) == null) {
                System.setProperty(k, nested.launch().getProperty(k));
            }
        }
        Path cache = NestedJars.cache(Path.of(System.getProperty("rtbox.run", System.getProperty("java.io.tmpdir")))
                .resolve("jars"));
        List<Path> classPath = new ArrayList<>();
        for (String r : nested.runpath()) {
            // bnd's launcher is what starts the framework: not wanted here.
            if (!r.contains("biz.aQute.launcher")) {
                classPath.add(nested.extract(r, cache));
            }
        }
        List<Path> bundles = new ArrayList<>();
        for (String b : nested.bundles()) {
            bundles.add(nested.extract(b, cache));
        }
        classPath.addAll(bundles);
        BundleJars loader = new BundleJars(classPath, ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        Components components = new Components(loader, new Configurations(home.resolve("etc")));
        for (int i = classPath.size() - bundles.size(); i < classPath.size(); i++) {
            components.add(loader.jar(i));
        }
        // The command line, found as bnd's launcher finds it: the Callable with main.thread=true.
        Object cli = components.service("java.util.concurrent.Callable", "main.thread", "true");
        if (cli == null) {
            return NEEDS_FRAMEWORK;
        }
        return (Integer) cli.getClass().getMethod("runWithoutFramework", String[].class).invoke(cli, (Object) args);
    }

    /**
     * Null if the framework would run exactly rtbox.jar's bundles, else what it would run
     * beyond them: none in a FileInstall
     * folder (etc/org.apache.felix.fileinstall-*.cfg), none other kept in its storage
     * (Felix's bundleN/bundle.info: id, location, state, start level, last modified), and each
     * of rtbox.jar's kept there as rtbox.jar has it.
     *
     * <p>That last point: with per-entry digests in rtbox.jar's manifest, bnd's launcher
     * updates a kept bundle only when rtbox.jar's digest differs from the one it recorded at
     * its own last install or update of it (the system bundle's data file
     * {@code .bnd.launcher/ID}), so a bundle updated since (over MQTT) stays updated across a
     * restart, and its classes are not rtbox.jar's. Such a bundle is one whose record is
     * missing or holds another digest, or which was modified after the record was written.
     * Without a digest for a bundle the launcher updates it at every start, so its location is
     * enough.
     *
     * @param bundles rtbox.jar's bundles by location, each with its digest or null
     */
    static String beyondRtboxJar(Path storage, Path home, Map<String, String> bundles) throws IOException {
        for (Path dir : fileInstallFolders(home)) {
            if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jar")) {
                    if (files.iterator().hasNext()) {
                        return "bundles in " + dir;
                    }
                }
            }
        }
        if (storage == null || !Files.isDirectory(storage)) {
            return null;
        }
        Path records = storage.resolve("bundle0").resolve(".bnd.launcher"); // Felix: the system bundle's data folder
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(storage, "bundle*")) {
            for (Path d : dirs) {
                Path info = d.resolve("bundle.info");
                if (Files.isRegularFile(info)) {
                    List<String> lines = Files.readAllLines(info, StandardCharsets.UTF_8);
                    if (lines.size() < 5 || !bundles.containsKey(lines.get(1))) {
                        return "bundle " + d.getFileName() + " (" + (lines.size() < 2 ? "?" : lines.get(1)) + ")";
                    }
                    String digest = bundles.get(lines.get(1));
                    if (digest != null && !asInstalled(records.resolve(lines.get(0).trim()), digest, lines.get(4))) {
                        return "bundle " + d.getFileName() + " (" + lines.get(1) + ") is not rtbox.jar's build";
                    }
                }
            }
        }
        return null;
    }

    /** The launcher's record holds {@code digest}, and the bundle was not modified after the record was written. */
    private static boolean asInstalled(Path record, String digest, String lastModified) throws IOException {
        if (!Files.isRegularFile(record) || !Files.readString(record, StandardCharsets.UTF_8).trim().equals(digest)) {
            return false;
        }
        try {
            return Long.parseLong(lastModified.trim()) <= Files.getLastModifiedTime(record).toMillis() + CLOCK_SLACK_MS;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static List<Path> fileInstallFolders(Path home) throws IOException {
        List<Path> out = new ArrayList<>();
        Path etc = home.resolve("etc");
        if (!Files.isDirectory(etc)) {
            return out;
        }
        try (DirectoryStream<Path> cfgs = Files.newDirectoryStream(etc, "org.apache.felix.fileinstall-*.cfg")) {
            for (Path cfg : cfgs) {
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(cfg)) {
                    p.load(in);
                }
                String dir = p.getProperty("felix.fileinstall.dir");
                if (dir != null) {
                    out.add(Path.of(dir.replace("${rtbox.home}", home.toString())));
                }
            }
        }
        return out;
    }
}
