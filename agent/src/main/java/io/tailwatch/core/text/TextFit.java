package io.tailwatch.core.text;

import java.util.ArrayList;
import java.util.List;

/**
 * Fits command-line text to a terminal width without dropping anything: pieces that do not fit move
 * onto indented continuation lines; a piece wider than a whole line breaks at its spaces, or, if it has
 * none, after its last slash that fits (a path), or else at the width. Widths are terminal columns
 * ({@link Columns}): a wide character counts two and is never split.
 */
public final class TextFit {
    private TextFit() {
    }

    /**
     * {@code first} followed by {@code pieces} (two spaces apart), wrapped at {@code width}; continuation
     * lines start with {@code indent}. Every returned line ends with a newline.
     */
    public static String pieces(String first, List<String> pieces, String indent, int width) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder();
        for (String chunk : breakLong(first, width, width - Columns.width(indent))) {
            if (line.length() > 0) {
                out.append(line).append('\n');
                line.setLength(0);
                line.append(indent);
            }
            line.append(chunk);
        }
        List<String> kept = new ArrayList<>();
        for (String piece : pieces) {
            if (piece != null && !piece.isEmpty()) {
                kept.add(piece);
            }
        }
        flow(out, line, kept, indent, width, "  ");
        out.append(line).append('\n');
        return out.toString();
    }

    /** One line of prose wrapped at its spaces; continuation lines start with {@code indent}. */
    public static String words(String first, String text, String indent, int width) {
        List<String> ws = new ArrayList<>();
        for (String w : text.split(" ")) {
            if (!w.isEmpty()) {
                ws.add(w);
            }
        }
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(first);
        flow(out, line, ws, indent, width, " ");
        out.append(line).append('\n');
        return out.toString();
    }

    /**
     * Appends {@code items} to {@code line}, {@code gap} apart (none after a blank line or a trailing
     * space), moving to a new {@code indent}ed line whenever the next item does not fit, and breaking an
     * item wider than a whole line. Completed lines go to {@code out}; the last stays in {@code line}.
     */
    private static void flow(StringBuilder out, StringBuilder line, List<String> items, String indent, int width,
            String gap) {
        for (String item : items) {
            boolean fresh = line.toString().isBlank();
            String sep = fresh || line.charAt(line.length() - 1) == ' ' && gap.equals(" ") ? "" : gap;
            if (Columns.width(line) + Columns.width(sep) + Columns.width(item) <= width) {
                line.append(sep).append(item);
                continue;
            }
            if (!fresh) {
                out.append(line).append('\n');
                line.setLength(0);
                line.append(indent);
            }
            List<String> chunks = breakLong(item, width - Columns.width(indent), width - Columns.width(indent));
            for (int i = 0; i < chunks.size(); i++) {
                if (i > 0) {
                    out.append(line).append('\n');
                    line.setLength(0);
                    line.append(indent);
                }
                line.append(chunks.get(i));
            }
        }
    }

    /** A line already laid out in columns, kept as is when it fits, else wrapped at its spaces. */
    public static String line(String text, String indent, int width) {
        if (Columns.width(text) <= width) {
            return text + "\n";
        }
        int lead = 0;
        while (lead < text.length() && text.charAt(lead) == ' ') {
            lead++;
        }
        return words(text.substring(0, lead), text.substring(lead), indent, width);
    }

    /** Splits {@code s} into parts, the first no wider than {@code first}, the rest {@code rest}; at spaces when it can. */
    private static List<String> breakLong(String s, int first, int rest) {
        List<String> parts = new ArrayList<>();
        int w = Math.max(1, first);
        String left = s;
        while (Columns.width(left) > w) {
            // end: where the start that fits ends (a char index); at least one whole character.
            int end = Math.max(Columns.cutIndex(left, w), Columns.cutIndex(left, Columns.width(left.codePointAt(0))));
            int cut = left.lastIndexOf(' ', end);
            int slash = left.lastIndexOf('/', end - 1);
            if (cut <= 0 && slash > 0) {
                // A path or a hub name: break after one of its slashes rather than inside a word.
                parts.add(left.substring(0, slash + 1));
                left = left.substring(slash + 1);
            } else if (cut <= 0) {
                parts.add(left.substring(0, end));
                left = left.substring(end);
            } else {
                parts.add(left.substring(0, cut));
                left = left.substring(cut + 1);
            }
            w = Math.max(1, rest);
        }
        parts.add(left);
        return parts;
    }
}
