package io.tailwatch.core.config;

import io.tailwatch.core.units.Units;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strict reader over one YAML mapping. Each getter consumes its key; {@link #finish()} reports
 * every key nobody asked for as unknown. Problems are collected, never thrown, so a config check
 * prints all of them at once. Strings undergo ${ENV_VAR} substitution.
 */
public final class Section {
    private static final Pattern ENV = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final ConfigNode.MapNode node;
    private final String path;
    private final Problems problems;
    private final Map<String, String> env;
    private final Set<String> consumed = new HashSet<>();

    public Section(ConfigNode node, String path, Problems problems, Map<String, String> env) {
        this.path = path;
        this.problems = problems;
        this.env = env;
        if (node == null || node instanceof ConfigNode.Null) {
            this.node = new ConfigNode.MapNode(node == null ? 0 : node.line(), node == null ? 0 : node.column(), Map.of());
        } else if (node instanceof ConfigNode.MapNode m) {
            this.node = m;
        } else {
            problems.add(node, path, "expected a mapping, got " + node.kind());
            this.node = new ConfigNode.MapNode(node.line(), node.column(), Map.of());
        }
    }

    public String path() {
        return path;
    }

    public Problems problems() {
        return problems;
    }

    public Map<String, String> env() {
        return env;
    }

    public ConfigNode node() {
        return node;
    }

    public boolean has(String key) {
        return node.entries().containsKey(key);
    }

    /** The key is present with no value ({@code key:} or {@code key: null}). */
    public boolean isNull(String key) {
        ConfigNode.Entry e = node.entries().get(key);
        return e != null && e.value() instanceof ConfigNode.Null;
    }

    public Set<String> keys() {
        return node.entries().keySet();
    }

    private String at(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private ConfigNode raw(String key) {
        consumed.add(key);
        ConfigNode.Entry e = node.entries().get(key);
        return e == null ? null : e.value();
    }

    /** Reads a scalar and converts it; a problem is recorded and {@code def} returned when it fails. */
    public <T> T scalar(String key, T def, String expected, Function<String, T> convert) {
        ConfigNode n = raw(key);
        if (n == null || n instanceof ConfigNode.Null) {
            return def;
        }
        if (!(n instanceof ConfigNode.Scalar s)) {
            problems.add(n, at(key), "expected " + expected + ", got " + n.kind());
            return def;
        }
        String text;
        try {
            text = substitute(s.text());
        } catch (IllegalArgumentException e) {
            problems.add(n, at(key), e.getMessage());
            return def;
        }
        try {
            return convert.apply(text);
        } catch (RuntimeException e) {
            String msg = e.getMessage() == null ? "" : e.getMessage();
            problems.add(n, at(key), "expected " + expected + ", got '" + text + "'"
                    + (msg.isEmpty() || msg.startsWith("For input") ? "" : " (" + msg + ")"));
            return def;
        }
    }

    String substitute(String text) {
        Matcher m = ENV.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = env.get(m.group(1));
            if (v == null) {
                throw new IllegalArgumentException("environment variable " + m.group(1) + " is not set");
            }
            m.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        m.appendTail(b);
        return b.toString();
    }

    /**
     * A file system path; a value the OS cannot take (a NUL byte, say) is a problem naming the key,
     * not an uncaught exception. {@code ~/} expands to $HOME.
     */
    public java.nio.file.Path path(String key, String def) {
        String v = string(key, def);
        if (v == null || v.isBlank()) {
            return null;
        }
        v = v.strip();
        if (v.indexOf('\0') >= 0) {
            problem(key, "a path must not contain a NUL character");
            return null;
        }
        if (v.equals("~") || v.startsWith("~/")) {
            v = env.getOrDefault("HOME", System.getProperty("user.home")) + v.substring(1);
        }
        try {
            return java.nio.file.Path.of(v);
        } catch (java.nio.file.InvalidPathException e) {
            problem(key, "not a valid path: " + e.getReason());
            return null;
        }
    }

    public String string(String key, String def) {
        return scalar(key, def, "a string", s -> s);
    }

    public String oneOf(String key, String def, String... allowed) {
        String v = string(key, def);
        if (v != null && !List.of(allowed).contains(v)) {
            problems.add(raw(key), at(key), "expected one of " + String.join(", ", allowed) + ", got '" + v + "'");
            return def;
        }
        return v;
    }

    public boolean bool(String key, boolean def) {
        return scalar(key, def, "true or false", s -> {
            if (s.equals("true")) {
                return true;
            }
            if (s.equals("false")) {
                return false;
            }
            throw new IllegalArgumentException("");
        });
    }

    public int integer(String key, int def, int min, int max) {
        Integer v = scalar(key, def, "a whole number", Integer::parseInt);
        return checkRange(key, v, min, max, def, Integer.toString(min), Integer.toString(max));
    }

    public double number(String key, double def, double min, double max) {
        Double v = scalar(key, def, "a number", Double::parseDouble);
        return checkRange(key, v, min, max, def, Double.toString(min), Double.toString(max));
    }

    public Duration duration(String key, Duration def, Duration min, Duration max) {
        Duration v = scalar(key, def, "a duration (e.g. 250ms, 5s, 1m)", Units::duration);
        return checkRange(key, v, min, max, def, Units.format(min), Units.format(max));
    }

    public long bytes(String key, long def, long min, long max) {
        Long v = scalar(key, def, "a size (e.g. 512MiB, 1GiB)", Units::bytes);
        return checkRange(key, v, min, max, def, Units.formatBytes(min), Units.formatBytes(max));
    }

    private <T extends Comparable<T>> T checkRange(String key, T v, T min, T max, T def, String minText, String maxText) {
        if (v != null && (v.compareTo(min) < 0 || v.compareTo(max) > 0)) {
            problems.add(node.entries().get(key) == null ? null : node.entries().get(key).value(), at(key),
                    "out of range: must be between " + minText + " and " + maxText);
            return def;
        }
        return v;
    }

    /** A nested mapping; absent gives an empty section (so every default applies). */
    public Section section(String key) {
        return new Section(raw(key), at(key), problems, env);
    }

    /** A list of mappings; {@code null} when the key is absent. */
    public List<Section> sections(String key) {
        ConfigNode n = raw(key);
        if (n == null) {
            return null;
        }
        if (n instanceof ConfigNode.Null) {
            return List.of();
        }
        if (!(n instanceof ConfigNode.ListNode l)) {
            problems.add(n, at(key), "expected a list, got " + n.kind());
            return List.of();
        }
        List<Section> out = new ArrayList<>();
        for (int i = 0; i < l.items().size(); i++) {
            out.add(new Section(l.items().get(i), at(key) + "[" + i + "]", problems, env));
        }
        return out;
    }

    /** A mapping of string to string (e.g. headers). */
    public Map<String, String> stringMap(String key) {
        Section s = section(key);
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : s.keys()) {
            out.put(k, s.string(k, ""));
        }
        return out;
    }

    /** A list of scalars. */
    public List<String> strings(String key, List<String> def) {
        ConfigNode n = raw(key);
        if (n == null || n instanceof ConfigNode.Null) {
            return def;
        }
        if (!(n instanceof ConfigNode.ListNode l)) {
            problems.add(n, at(key), "expected a list, got " + n.kind());
            return def;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < l.items().size(); i++) {
            ConfigNode item = l.items().get(i);
            if (item instanceof ConfigNode.Scalar s) {
                try {
                    out.add(substitute(s.text()));
                } catch (IllegalArgumentException e) {
                    problems.add(item, at(key) + "[" + i + "]", e.getMessage());
                }
            } else {
                problems.add(item, at(key) + "[" + i + "]", "expected a scalar, got " + item.kind());
            }
        }
        return out;
    }

    /** Records a problem at a key of this section (or at the section itself when the key is absent). */
    public void problem(String key, String message) {
        ConfigNode.Entry e = node.entries().get(key);
        problems.add(e == null ? node : e.value(), key == null ? path : at(key), message);
    }

    /** Reports every key of this mapping that no getter consumed. */
    public void finish() {
        for (Map.Entry<String, ConfigNode.Entry> e : node.entries().entrySet()) {
            if (!consumed.contains(e.getKey())) {
                problems.add(e.getValue().line(), e.getValue().column(), at(e.getKey()), "unknown key");
            }
        }
    }
}
