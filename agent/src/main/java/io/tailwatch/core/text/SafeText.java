package io.tailwatch.core.text;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;

/**
 * The one rule for text from outside (engines, the network, files) on its way to a log line or a
 * terminal: every character that a terminal or a log reader acts on is written as a visible escape
 * instead. That is the C0 controls but tab (ESC, which starts CSI and OSC sequences, BEL, which ends an
 * OSC title, backspace, form feed, CR), DEL, the C1 controls U+0080..U+009F (U+009B is a one-character
 * CSI, U+009D an OSC), the line and paragraph separators and the bidirectional overrides and isolates
 * (which reorder what is shown). {@code core.logging.LogGuard} escapes log lines with it, line feeds included; the
 * command line's writers pass through {@link TerminalWriter}, which keeps line feeds.
 */
public final class SafeText {
    private SafeText() {
    }

    /** A character a terminal or a log reader would act on rather than show. */
    public static boolean unsafe(char c) {
        return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
    }

    /** Escapes every unsafe character (line feeds too) and cuts the text at {@code max} characters (whole code points). */
    public static String escape(String s, int max) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = null;
        int n = Math.min(s.length(), max);
        if (n > 0 && n < s.length() && Character.isHighSurrogate(s.charAt(n - 1))) {
            n--; // never half a character: a surrogate pair is cut before, not between
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (unsafe(c)) {
                if (b == null) {
                    b = new StringBuilder(n + 16).append(s, 0, i);
                }
                appendEscape(b, c);
            } else if (b != null) {
                b.append(c);
            }
        }
        String r = b == null ? s.substring(0, n) : b.toString();
        return s.length() > n ? r + "...(" + (s.length() - n) + " more chars)" : r;
    }

    /** The whole text with every unsafe character but the line feed escaped: for text shown on a terminal. */
    public static String terminal(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\n' && unsafe(c)) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                appendEscape(b, c);
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }

    private static void appendEscape(StringBuilder b, char c) {
        switch (c) {
            case '\n' -> b.append("\\n");
            case '\r' -> b.append("\\r");
            default -> b.append(String.format("\\u%04x", (int) c));
        }
    }

    /**
     * A writer that passes text on with {@link #terminal} applied: what the command line prints (its own
     * text never holds a control character but the line feed and tab) cannot move the cursor, clear the
     * screen, set the window title or ring the bell, whatever an engine or the agent's answer contained.
     */
    public static final class TerminalWriter extends FilterWriter {
        public TerminalWriter(Writer out) {
            super(out);
        }

        @Override
        public void write(int c) throws IOException {
            out.write(terminal(String.valueOf((char) c)));
        }

        @Override
        public void write(char[] cbuf, int off, int len) throws IOException {
            out.write(terminal(new String(cbuf, off, len)));
        }

        @Override
        public void write(String str, int off, int len) throws IOException {
            out.write(terminal(str.substring(off, off + len)));
        }
    }
}
