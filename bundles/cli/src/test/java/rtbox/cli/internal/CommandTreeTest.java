package rtbox.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The command line with only the named branch built ({@link CommandTree}) answers every line
 * as the whole tree does: the same stdout, stderr and exit code, for help at every level,
 * version, mistakes with their "did you mean", and a line that needs the framework.
 */
class CommandTreeTest {
    private record Answer(int code, String out, String err) {
    }

    private static Answer answer(boolean whole, String... args) {
        PrintStream out = System.out, err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            Cli cli = new Cli();
            // This bundle's commands, as DS would give them (services of rtbox.cli.Subcommand).
            cli.commands.addAll(List.of(new RunCommand(), new ProbesCommand(), new LoadCommand(),
                    new SelftestCommand(), new ServeCommand(), new PlanCommand(), new ResultsCommand()));
            cli.wholeTree = whole;
            int code = cli.executeForTest(args);
            return new Answer(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void everyLineIsAnsweredAsByTheWholeTree() {
        List<String[]> lines = List.of(new String[] {}, new String[] {"--help"}, new String[] {"-h"},
                new String[] {"help"}, new String[] {"--version"}, new String[] {"-V"}, new String[] {"help", "run"},
                new String[] {"help", "plan"}, new String[] {"help", "nosuch"}, new String[] {"run", "--help"},
                new String[] {"load", "--help"}, new String[] {"selftest", "--help"}, new String[] {"serve", "-h"},
                new String[] {"probes", "-h"}, new String[] {"results", "--help"}, new String[] {"plan"},
                new String[] {"plan", "--help"}, new String[] {"plan", "check", "--help"},
                new String[] {"plan", "run", "-h"}, new String[] {"plan", "check"}, new String[] {"plan", "chek"},
                new String[] {"rn"}, new String[] {"--hlep"}, new String[] {"run", "--hlep"},
                new String[] {"run", "timer", "--priorty", "80"}, new String[] {"serve"}, new String[] {"--", "run"});
        int nonEmpty = 0;
        for (String[] line : lines) {
            String l = String.join(" ", line);
            Answer whole = answer(true, line);
            Answer named = answer(false, line);
            assertEquals(whole.out(), named.out(), l + ": stdout");
            assertEquals(whole.err(), named.err(), l + ": stderr");
            assertEquals(whole.code(), named.code(), l + ": exit code");
            nonEmpty += whole.out().isEmpty() && whole.err().isEmpty() ? 0 : 1;
        }
        // Not vacuous: all but "serve" (which needs the framework, exit 75 and nothing said) print something.
        assertEquals(lines.size() - 1, nonEmpty);
        assertTrue(answer(false, "--help").out().contains("Usage: rtbox"));
    }

    @Test
    void theNamedCommandIsTheFirstWordThatIsNoOptionOrTheOneAfterHelp() {
        assertEquals("run", CommandTree.wanted(new String[] {"run", "-h", "400"}));
        assertEquals("plan", CommandTree.wanted(new String[] {"--help", "plan", "check"}));
        assertEquals("run", CommandTree.wanted(new String[] {"help", "run"}));
        assertEquals("help", CommandTree.wanted(new String[] {"help", "help"}));
        assertNull(CommandTree.wanted(new String[] {"-V"}));
        assertNull(CommandTree.wanted(new String[] {"help"}));
    }
}
