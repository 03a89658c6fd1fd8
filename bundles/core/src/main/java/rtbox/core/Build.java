package rtbox.core;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

/**
 * Which rtbox this is: the version and the git commit it was built from, as bnd stamped
 * them into rtbox.core's manifest ({@code Bundle-Version}, {@code Rtbox-Git-Commit} from
 * {@code git describe --always --dirty} at build time; cnf/build.bnd). Every result, report,
 * MQTT status and {@code --version} says it, so a figure can be traced to the code that
 * measured it. Outside a built jar (a unit test on classes) both are "unknown".
 */
public final class Build {
    private static final String VERSION, COMMIT;

    static {
        String version = "unknown", commit = "unknown";
        try {
            Enumeration<URL> all = Build.class.getClassLoader().getResources("META-INF/MANIFEST.MF");
            while (all.hasMoreElements()) {
                try (InputStream in = all.nextElement().openStream()) {
                    Attributes a = new Manifest(in).getMainAttributes();
                    if ("rtbox.core".equals(a.getValue("Bundle-SymbolicName"))) {
                        version = orUnknown(a.getValue("Bundle-Version"));
                        commit = orUnknown(a.getValue("Rtbox-Git-Commit"));
                        break;
                    }
                }
            }
        } catch (IOException e) {
            // A manifest that cannot be read leaves "unknown": nothing measured depends on it.
        }
        VERSION = version;
        COMMIT = commit;
    }

    private Build() {
    }

    private static String orUnknown(String s) {
        return s == null || s.isBlank() ? "unknown" : s.strip();
    }

    /** rtbox's version, e.g. {@code 0.1.0.202612030910}. */
    public static String version() {
        return VERSION;
    }

    /** The git commit it was built from ({@code git describe --always --dirty}), or "unknown". */
    public static String commit() {
        return COMMIT;
    }

    /** One line for people and for cyclictest's {@code rt_test_version}: {@code rtbox 0.1.0... (git 5d51b53)}. */
    public static String describe() {
        return "rtbox " + VERSION + " (git " + COMMIT + ")";
    }
}
