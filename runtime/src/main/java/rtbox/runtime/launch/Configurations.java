package rtbox.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration FileInstall gives Config Admin from etc/ ({@code PID.cfg}: Java
 * properties, each value a String with {@code ${name}} replaced by a system property), read
 * without either. A factory configuration ({@code PID-NAME.cfg}) or a typed {@code .config}
 * file is not read here: {@link Components.Unsupported}, and the framework answers.
 */
final class Configurations {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]+)\\}");
    private final Path etc;
    private final Map<String, Map<String, Object>> read = new HashMap<>();

    Configurations(Path etc) {
        this.etc = etc;
    }

    Map<String, Object> of(String pid) throws Components.Unsupported {
        Map<String, Object> known = read.get(pid);
        if (known != null) {
            return known;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            if (Files.isDirectory(etc)) {
                try (DirectoryStream<Path> others = Files.newDirectoryStream(etc, pid + "{-*.cfg,.config,-*.config}")) {
                    if (others.iterator().hasNext()) {
                        throw new Components.Unsupported("etc/ has a factory or typed configuration of " + pid);
                    }
                }
            }
            Path cfg = etc.resolve(pid + ".cfg");
            if (Files.isRegularFile(cfg)) {
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(cfg)) {
                    p.load(in);
                }
                for (String k : p.stringPropertyNames()) {
                    out.put(k, substitute(p.getProperty(k)));
                }
            }
        } catch (IOException e) {
            throw new Components.Unsupported("cannot read the configuration of " + pid + ": " + e.getMessage());
        }
        read.put(pid, out);
        return out;
    }

    private static String substitute(String value) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(System.getProperty(m.group(1), m.group())));
        }
        m.appendTail(b);
        return b.toString();
    }
}
