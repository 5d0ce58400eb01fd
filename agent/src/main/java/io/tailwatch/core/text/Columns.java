package io.tailwatch.core.text;

import org.jline.utils.WCWidth;

/**
 * Text measured in terminal columns rather than in chars: a CJK ideograph or an emoji takes two columns,
 * a combining mark or a zero-width joiner none, a character outside the Basic Multilingual Plane is two
 * chars and one glyph. Widths come from JLine's {@link WCWidth} (the wcwidth tables terminals follow). A
 * character the command line's writer shows as an escape ({@link SafeText}) counts as wide as its escape,
 * so columns stay aligned after escaping. Padding and cutting work on whole code points and never split a
 * wide character; marks of zero width stay with the character before them.
 */
public final class Columns {
    private Columns() {
    }

    /** The columns {@code s} takes on a terminal. */
    public static int width(CharSequence s) {
        int w = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = Character.codePointAt(s, i);
            w += width(cp);
            i += Character.charCount(cp);
        }
        return w;
    }

    /** The columns one code point takes (0 for marks and joiners; an escaped control its escape's width). */
    public static int width(int cp) {
        if (cp == '\n') {
            return 0;
        }
        if (cp == '\t') {
            return 1;
        }
        if (cp <= 0xffff && SafeText.unsafe((char) cp)) {
            return cp == '\r' ? 2 : 6; // "\r", "\\u001b"
        }
        return Math.max(0, WCWidth.wcwidth(cp));
    }

    /** {@code s} followed by spaces up to {@code columns} (as {@code %-Ns} in columns); unchanged when wider. */
    public static String padRight(String s, int columns) {
        int pad = columns - width(s);
        return pad <= 0 ? s : s + " ".repeat(pad);
    }

    /** Spaces up to {@code columns} followed by {@code s} (as {@code %Ns} in columns); unchanged when wider. */
    public static String padLeft(String s, int columns) {
        int pad = columns - width(s);
        return pad <= 0 ? s : " ".repeat(pad) + s;
    }

    /**
     * The char index where the longest start of {@code s} no wider than {@code columns} ends: whole code
     * points only, a wide character that would cross the edge left out, the zero-width marks after the
     * last character kept taken with it.
     */
    public static int cutIndex(CharSequence s, int columns) {
        int w = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = Character.codePointAt(s, i);
            int cw = width(cp);
            if (w + cw > columns) {
                break;
            }
            w += cw;
            i += Character.charCount(cp);
        }
        return i;
    }

    /** The longest start of {@code s} no wider than {@code columns} (see {@link #cutIndex}). */
    public static String cut(String s, int columns) {
        return s.substring(0, cutIndex(s, Math.max(0, columns)));
    }

    /**
     * {@code s} when it fits {@code columns}, else its start and {@code marker} together no wider than
     * {@code columns} (a wide character that would cross the edge is dropped whole, so the result may be
     * a column narrower).
     */
    public static String fit(String s, int columns, String marker) {
        if (width(s) <= columns) {
            return s;
        }
        return cut(s, columns - width(marker)) + marker;
    }
}
