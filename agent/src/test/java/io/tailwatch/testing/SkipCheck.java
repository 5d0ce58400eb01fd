package io.tailwatch.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the places in a test source where a test could be skipped on something other than the
 * platform. A test may skip only when (a) the operating system or the account it runs as is not
 * the one it is about ({@code os.name}, {@code os.arch}, {@code @EnabledOnOs}, {@code uid == 0}), or (b) a tool it
 * drives is missing and the same method turns that into a failure when the matching
 * {@code TAILWATCH_REQUIRE_*} variable is set (CI sets them all). Everything else (a skip when a
 * series is late, {@code @Disabled}, {@code @EnabledIf...}, {@code assumingThat}, {@code abort})
 * would let a regression show up as "skipped", so it is reported.
 */
public final class SkipCheck {
    private SkipCheck() {
    }

    /** A call of JUnit 5's or JUnit 4's assumptions, with or without the class name. */
    private static final Pattern ASSUME = Pattern.compile(
            "(?:(?<![\\w.])|\\b(?:Assumptions|Assume)\\.)(assumeTrue|assumeFalse|assumingThat|assumeThat|assumeNotNull)\\s*\\("
                    + "|\\b(?:Assumptions|Assume)\\.(abort|\\w+)\\s*\\(");
    /** Skipping annotations; {@code @EnabledOnOs}/{@code @DisabledOnOs} (the platform) are allowed. */
    private static final Pattern ANNOTATION = Pattern.compile("@(Disabled|EnabledIf\\w*|DisabledIf\\w*|Ignore)\\b");
    private static final Pattern ABORTED = Pattern.compile("\\bnew\\s+(?:org\\.opentest4j\\.)?TestAbortedException\\b");
    /** A method or constructor header at class-body indentation (four spaces), where a method body starts. */
    private static final Pattern METHOD_HEADER = Pattern.compile("^ {4}[\\w@][\\w@<>\\[\\],.? ]*\\b\\w+\\s*\\([^;]*$");
    /** {@code @EnabledIfSystemProperty} on the platform's properties ({@code os.name}, {@code os.arch}). */
    private static final Pattern OS_PROPERTY = Pattern.compile("named\\s*=\\s*\"os\\.(name|arch)\"");
    /** Platform conditions: the operating system or running as root. */
    private static final Pattern PLATFORM = Pattern.compile("\"os\\.name\"|\\bOS\\.[A-Z]+|\\buid\\s*[!=]=\\s*0\\b");

    /** Each place in {@code source} (named {@code file} in the messages) that skips on a condition other than the platform. */
    public static List<String> violations(String file, String source) {
        List<String> out = new ArrayList<>();
        String code = blank(source, false);
        String[] lines = blank(source, true).split("\n", -1);
        String[] withStrings = code.split("\n", -1);
        int offset = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = file + ":" + (i + 1) + ": ";
            Matcher a = ANNOTATION.matcher(line);
            while (a.find()) {
                if (a.group(1).endsWith("IfSystemProperty") && OS_PROPERTY.matcher(withStrings[i]).find()) {
                    continue; // the operating system or the architecture: the platform
                }
                out.add(where + "@" + a.group(1) + " skips a test on something other than the platform");
            }
            if (ABORTED.matcher(line).find()) {
                out.add(where + "TestAbortedException skips a test");
            }
            Matcher m = ASSUME.matcher(line);
            while (m.find()) {
                if (line.substring(0, m.start()).matches(".*\\b(?:import|void|static\\s+\\w+)\\s+[\\w.]*$")) {
                    continue; // an import or a declaration of the same name, not a call
                }
                String call = m.group(1) != null ? m.group(1) : m.group(2);
                String condition = firstArgument(code, offset + m.end());
                if (!call.equals("assumeTrue") && !call.equals("assumeFalse")) {
                    out.add(where + call + " skips on a condition the guard cannot vouch for: " + condition);
                } else if (PLATFORM.matcher(condition).find()) {
                    continue;
                } else if (!requiredInMethod(withStrings, i)) {
                    out.add(where + call + "(" + condition + ") skips on a product condition: assert it instead,"
                            + " or make a missing tool a failure under a TAILWATCH_REQUIRE_* variable in the same method");
                }
            }
            offset += line.length() + 1;
        }
        return out;
    }

    /** Whether the method around line {@code i} reads a TAILWATCH_REQUIRE_* variable before that line. */
    private static boolean requiredInMethod(String[] lines, int i) {
        for (int j = i; j >= 0; j--) {
            if (lines[j].contains("TAILWATCH_REQUIRE_")) {
                return true;
            }
            if (j < i && METHOD_HEADER.matcher(lines[j]).find()) {
                return false;
            }
        }
        return false;
    }

    /** The text of the first argument of the call whose opening parenthesis ends at {@code from}. */
    static String firstArgument(String code, int from) {
        int depth = 0;
        StringBuilder arg = new StringBuilder();
        for (int k = from; k < code.length(); k++) {
            char c = code.charAt(k);
            if (c == '"') {
                int end = k + 1;
                while (end < code.length() && code.charAt(end) != '"') {
                    end += code.charAt(end) == '\\' ? 2 : 1;
                }
                arg.append(code, k, Math.min(end + 1, code.length()));
                k = end;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                break;
            }
            arg.append(c);
        }
        return arg.toString().strip().replaceAll("\\s+", " ");
    }

    /**
     * The source with comments (and, with {@code strings}, the text inside string and character
     * literals) replaced by spaces, line breaks and length kept: a word there is not a call.
     */
    static String blank(String s, boolean strings) {
        StringBuilder out = new StringBuilder(s.length());
        int k = 0;
        while (k < s.length()) {
            char c = s.charAt(k);
            if (c == '"') {
                boolean block = s.startsWith("\"\"\"", k);
                String close = block ? "\"\"\"" : "\"";
                int end = k + close.length();
                while (end < s.length() && !s.startsWith(close, end)) {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + close.length(), s.length());
                appendLiteral(out, s, k, end, close.length(), strings);
                k = end;
            } else if (s.startsWith("//", k) || s.startsWith("/*", k)) {
                int end = s.startsWith("//", k) ? s.indexOf('\n', k) : s.indexOf("*/", k + 2);
                end = end < 0 ? s.length() : s.startsWith("/*", k) ? end + 2 : end;
                for (int j = k; j < end; j++) {
                    out.append(s.charAt(j) == '\n' ? '\n' : ' ');
                }
                k = end;
            } else if (c == '\'') {
                int end = s.indexOf('\'', k + (s.charAt(k + 1) == '\\' ? 3 : 2));
                end = end < 0 ? s.length() : end + 1;
                appendLiteral(out, s, k, end, 1, strings);
                k = end;
            } else {
                out.append(c);
                k++;
            }
        }
        return out.toString();
    }

    private static void appendLiteral(StringBuilder out, String s, int from, int to, int quote, boolean blank) {
        for (int j = from; j < to; j++) {
            char c = s.charAt(j);
            boolean inside = j >= from + quote && j < to - quote;
            out.append(blank && inside && c != '\n' ? ' ' : c);
        }
    }
}
