package rtbox.os;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SYSLINUX configuration as text: its entries ({@code LABEL name}) and the one it boots
 * ({@code DEFAULT name}), and the same text with another default. Only the DEFAULT lines
 * change; every other line, comment, indentation and line ending stays as it was, so a
 * factory's own kernel parameters (rtbox.id=, rtbox.broker=) survive a change of kernel.
 * SYSLINUX reads keywords in any case and the last DEFAULT it meets; this class does too.
 *
 * @since 1.11
 */
public final class BootConfig {
    private final String text;
    private final String[] lines;
    private final String newline;

    private BootConfig(String text) {
        this.text = text;
        this.newline = text.contains("\r\n") ? "\r\n" : "\n";
        this.lines = text.split("\r?\n", -1);
    }

    public static BootConfig parse(String text) {
        return new BootConfig(text);
    }

    /** The entries, in the order the file has them. */
    public List<String> labels() {
        List<String> labels = new ArrayList<>();
        for (String line : lines) {
            String v = value(line, "label");
            if (v != null && !v.isEmpty()) {
                labels.add(v);
            }
        }
        return labels;
    }

    /** The entry booted when nobody chooses: the last DEFAULT's; null when the file has none. */
    public String defaultLabel() {
        String d = null;
        for (String line : lines) {
            String v = value(line, "default");
            if (v != null) {
                d = v;
            }
        }
        return d;
    }

    /**
     * The text with {@code label} as the default: every DEFAULT line names it (one DEFAULT line put
     * before the first entry when there is none); the rest unchanged.
     *
     * @throws IllegalArgumentException when the file has no entry {@code label}; the message names the ones it has
     */
    public String withDefault(String label) {
        List<String> labels = labels();
        if (!labels.contains(label)) {
            throw new IllegalArgumentException("no boot entry '" + label + "': the boot configuration has "
                    + (labels.isEmpty() ? "none" : String.join(", ", labels)));
        }
        StringBuilder b = new StringBuilder(text.length() + 16);
        boolean replaced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (value(line, "default") != null) {
                int start = indent(line);
                line = line.substring(0, start) + line.substring(start, start + "default".length()) + " " + label;
                replaced = true;
            }
            b.append(line);
            if (i < lines.length - 1) {
                b.append(newline);
            }
        }
        if (replaced) {
            return b.toString();
        }
        StringBuilder c = new StringBuilder(text.length() + 16);
        boolean put = false;
        for (int i = 0; i < lines.length; i++) {
            if (!put && value(lines[i], "label") != null) {
                c.append("DEFAULT ").append(label).append(newline);
                put = true;
            }
            c.append(lines[i]);
            if (i < lines.length - 1) {
                c.append(newline);
            }
        }
        return c.toString();
    }

    @Override
    public String toString() {
        return text;
    }

    private static int indent(String line) {
        int i = 0;
        while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The value of a {@code KEYWORD value} line (keyword in any case), null for any other line. */
    private static String value(String line, String keyword) {
        int start = indent(line);
        int end = start + keyword.length();
        if (line.length() < end || !line.substring(start, end).toLowerCase(Locale.ROOT).equals(keyword)) {
            return null;
        }
        if (line.length() > end && !Character.isWhitespace(line.charAt(end))) {
            return null; // DEFAULTS, LABELX: another word
        }
        return line.substring(end).trim();
    }
}
