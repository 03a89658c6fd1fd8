package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The house rules a build can check, on the sources themselves (a unit test of the runtime module,
 * so {@code mvn verify} runs it; well under a second): a main-source file over 400 lines says why
 * at its top; SLF4J calls take placeholders, not a message built by string concatenation; a README
 * that names an exported package's version names the one its {@code @Version} says.
 */
class SourceRulesTest {
    static final int MAX_LINES = 400;
    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();

    private static List<Path> mainSources() throws IOException {
        List<Path> roots = new ArrayList<>();
        try (Stream<Path> bundles = Files.list(ROOT.resolve("bundles"))) {
            bundles.map(b -> b.resolve("src/main/java")).filter(Files::isDirectory).forEach(roots::add);
        }
        roots.add(ROOT.resolve("runtime/src/main/java"));
        List<Path> files = new ArrayList<>();
        for (Path r : roots) {
            try (Stream<Path> s = Files.walk(r)) {
                s.filter(p -> p.toString().endsWith(".java")).sorted().forEach(files::add);
            }
        }
        return files;
    }

    private static String rel(Path p) {
        return ROOT.relativize(p).toString();
    }

    /** The text before the first type declaration: package, imports and the type's own comment. */
    static String top(String source) {
        Matcher m = Pattern.compile("(?m)^(public |final |abstract |sealed |@\\w+.*\\n)*(class|interface|record|enum|@interface) ")
                .matcher(source);
        return m.find() ? source.substring(0, m.start()) : source;
    }

    /** Null when {@code source} keeps the length rule, else what is wrong. */
    static String lengthProblem(String source) {
        long lines = source.lines().count();
        if (lines <= MAX_LINES || top(source).toLowerCase(Locale.ROOT).contains("over 400 lines")) {
            return null;
        }
        return lines + " lines, and its top does not say why (\"Over 400 lines: ...\" in the class comment)";
    }

    @Test
    void aFileOver400LinesSaysWhyAtItsTop() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path f : mainSources()) {
            String why = lengthProblem(Files.readString(f));
            if (why != null) {
                problems.add(rel(f) + ": " + why);
            }
        }
        assertEquals(List.of(), problems);
    }

    private static final Pattern LOG_CALL =
            Pattern.compile("\\b(?:LOG|log|logger|LOGGER)\\.(?:trace|debug|info|warn|error)\\(");

    /**
     * The SLF4J calls in {@code source} whose message (first argument) is built at run time with
     * {@code +}; literals joined with {@code +} to wrap a long line are one constant and pass.
     */
    static List<String> concatenatedLogCalls(String source) {
        List<String> found = new ArrayList<>();
        Matcher m = LOG_CALL.matcher(source);
        while (m.find()) {
            String first = firstArgument(source, m.end());
            List<String> operands = topLevelPlusOperands(first);
            if (operands.size() > 1 && !operands.stream().allMatch(o -> o.matches("\"(?:[^\"\\\\]|\\\\.)*\""))) {
                int line = (int) source.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
                found.add("line " + line + ": " + first.strip().replaceAll("\\s+", " "));
            }
        }
        return found;
    }

    /** The first argument of the call whose '(' ends just before {@code from}. */
    private static String firstArgument(String s, int from) {
        int depth = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'') {
                i = endOfLiteral(s, i);
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth-- == 0) {
                    return s.substring(from, i);
                }
            } else if (c == ',' && depth == 0) {
                return s.substring(from, i);
            }
        }
        return s.substring(from);
    }

    private static List<String> topLevelPlusOperands(String e) {
        List<String> operands = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == '"' || c == '\'') {
                i = endOfLiteral(e, i);
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == '+' && depth == 0) {
                operands.add(e.substring(start, i).strip());
                start = i + 1;
            }
        }
        operands.add(e.substring(start).strip());
        return operands;
    }

    /** The index of the quote that closes the literal opening at {@code i}. */
    private static int endOfLiteral(String s, int i) {
        char q = s.charAt(i);
        for (int j = i + 1; j < s.length(); j++) {
            if (s.charAt(j) == '\\') {
                j++;
            } else if (s.charAt(j) == q) {
                return j;
            }
        }
        return s.length();
    }

    @Test
    void logCallsUsePlaceholders() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path f : mainSources()) {
            for (String call : concatenatedLogCalls(Files.readString(f))) {
                problems.add(rel(f) + " " + call);
            }
        }
        assertEquals(List.of(), problems, "SLF4J calls that build their message with +: use {} placeholders");
    }

    private static final Pattern NARROWING_GETTER = Pattern.compile("\\.getAs(Long|Int|Short|Byte)\\(\\)");

    /** The lines of {@code source} that call one of Gson's narrowing getters. */
    static List<String> narrowingGetters(String source) {
        List<String> found = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (NARROWING_GETTER.matcher(lines[i]).find()) {
                found.add("line " + (i + 1) + ": " + lines[i].strip());
            }
        }
        return found;
    }

    /**
     * A whole number read from JSON goes through rtbox.json's {@code JsonFields.whole(element, path,
     * min, max)}, exact and with its path in the error (issue 33): Gson's {@code getAsLong()} and
     * {@code getAsInt()} cut 2.5 to 2 (on rtbox.json's trees they now refuse, without a path), and
     * 20 calls in main sources used them. Not in main sources outside rtbox.json; an {@code OptionalLong} or
     * {@code IntSupplier} has {@code orElseThrow()} / its own name for the same.
     */
    @Test
    void wholeNumbersFromJsonAreReadExactlyWithTheirPath() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path f : mainSources()) {
            if (!rel(f).startsWith("bundles/json/")) {
                for (String line : narrowingGetters(Files.readString(f))) {
                    problems.add(rel(f) + " " + line);
                }
            }
        }
        assertEquals(List.of(), problems, "Gson's narrowing getters: read a whole number with JsonFields.whole(e, path,"
                + " min, max)");
    }

    @Test
    void theRulesCatchWhatTheyAreFor() {
        assertEquals(1, narrowingGetters("int n = o.get(\"limit\").getAsInt();").size());
        assertEquals(1, narrowingGetters("long s = p.getAsLong() + 1;").size());
        assertEquals(0, narrowingGetters("long s = JsonFields.whole(o.get(\"limit\"), \"$.limit\", 1, 100);").size());
        assertEquals(1, concatenatedLogCalls("LOG.warn(\"cannot read \" + file + \": \" + e, e);").size());
        assertEquals(1, concatenatedLogCalls("Appliance.LOG.info(x + \" as \" + y);").size());
        assertEquals(0, concatenatedLogCalls("LOG.warn(\"cannot read {}: {}\", file, \"a\" + e);").size());
        assertEquals(0, concatenatedLogCalls("LOG.warn(\"a long \"\n + \"message {}\", f(a, b));").size());
        assertEquals(0, concatenatedLogCalls("LOG.info(\"a + b = {}\", a + b);").size());
        String comment = "/**\n * Over 400 lines on purpose: one parser.\n */\nfinal class A {\n";
        String longFile = "x\n".repeat(MAX_LINES);
        assertEquals(null, lengthProblem(comment + longFile));
        assertEquals(true, lengthProblem("/** A. */\nfinal class A {\n" + longFile) != null);
        assertEquals(null, lengthProblem("final class A {\n}\n"));
        assertEquals(Map.of("rtbox.api", "1.0.0"),
                namedVersions("- `rtbox.api` (1.0.0): the contracts; `rtbox.x` is other", Map.of("rtbox.api", "")));
    }

    /** The exported packages' versions, from their package-info.java's {@code @Version}. */
    private static Map<String, String> packageVersions() throws IOException {
        Map<String, String> versions = new TreeMap<>();
        Pattern pkg = Pattern.compile("(?m)^package ([\\w.]+);");
        Pattern version = Pattern.compile("@(?:org\\.osgi\\.annotation\\.versioning\\.)?Version\\(\"([\\d.]+)\"\\)");
        for (Path f : mainSources()) {
            if (f.getFileName().toString().equals("package-info.java")) {
                String s = Files.readString(f);
                Matcher p = pkg.matcher(s), v = version.matcher(s);
                if (p.find() && v.find()) {
                    versions.put(p.group(1), v.group(1));
                }
            }
        }
        return versions;
    }

    /** The versions {@code text} gives the known packages, written "`package` (1.2.3)" as the READMEs do. */
    static Map<String, String> namedVersions(String text, Map<String, String> known) {
        Map<String, String> named = new TreeMap<>();
        Matcher m = Pattern.compile("`([\\w.]+)`\\s*\\((\\d+\\.\\d+\\.\\d+)").matcher(text);
        while (m.find()) {
            if (known.containsKey(m.group(1))) {
                named.put(m.group(1), m.group(2));
            }
        }
        return named;
    }

    @Test
    void readmesNameThePackageVersionsTheirVersionAnnotationsSay() throws IOException {
        Map<String, String> versions = packageVersions();
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> bundles = Files.list(ROOT.resolve("bundles"))) {
            bundles.map(b -> b.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(docs::add);
        }
        List<String> problems = new ArrayList<>();
        for (Path d : docs) {
            namedVersions(Files.readString(d), versions).forEach((p, v) -> {
                if (!v.equals(versions.get(p))) {
                    problems.add(rel(d) + ": `" + p + "` (" + v + ") where its @Version says " + versions.get(p));
                }
            });
        }
        assertEquals(List.of(), problems);
    }
}
