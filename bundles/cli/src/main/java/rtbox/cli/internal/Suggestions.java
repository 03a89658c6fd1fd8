package rtbox.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What a mistyped command line gets: the mistake, "did you mean" and where help is. picocli's
 * suggestions come first (they cover options well); for a command name picocli's bigram
 * similarity misses transpositions ("rnu" shares no bigram with "run"), so an edit distance
 * of at most 2 (a swap counts 1) finds those.
 */
final class Suggestions {
    private Suggestions() {
    }

    static void print(ParameterException e, PrintWriter err) {
        CommandLine cl = e.getCommandLine();
        String command = firstUnknownCommand(e);
        if (command != null) {
            err.println("rtbox: error: unknown command '" + command + "' for '" + cl.getCommandSpec().qualifiedName()
                    + "'");
        } else {
            err.println("rtbox: error: " + e.getMessage());
        }
        if (!UnmatchedArgumentException.printSuggestions(e, err) && command != null) {
            List<String> close = close(command, cl.getSubcommands().keySet());
            if (!close.isEmpty()) {
                err.println("Did you mean: " + String.join(" or ", close) + "?");
            }
        }
        err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    }

    /** The unmatched word where a subcommand was expected, or null. */
    private static String firstUnknownCommand(ParameterException e) {
        if (!(e instanceof UnmatchedArgumentException) || e.getCommandLine().getSubcommands().isEmpty()) {
            return null;
        }
        List<String> unmatched = ((UnmatchedArgumentException) e).getUnmatched();
        if (unmatched.isEmpty() || unmatched.get(0).startsWith("-")) {
            return null;
        }
        return unmatched.get(0);
    }

    static List<String> close(String typed, Iterable<String> names) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (distance(typed, n) <= Math.min(2, Math.max(1, n.length() / 3))) {
                out.add(n);
            }
        }
        return out;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
