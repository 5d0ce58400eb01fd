package io.tailwatch.core.config;

import java.util.ArrayList;
import java.util.List;

/** Every problem found in a config, each with its line, column and key path. */
public final class Problems {
    public record Problem(int line, int column, String path, String message) {
        @Override
        public String toString() {
            String where = line > 0 ? "line " + line + ", column " + column + ": " : "";
            return where + (path.isEmpty() ? "" : path + ": ") + message;
        }
    }

    private final String source;
    private final List<Problem> list = new ArrayList<>();

    public Problems(String source) {
        this.source = source;
    }

    public void add(int line, int column, String path, String message) {
        list.add(new Problem(line, column, path, message));
    }

    public void add(ConfigNode at, String path, String message) {
        add(at == null ? 0 : at.line(), at == null ? 0 : at.column(), path, message);
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    public List<Problem> list() {
        return List.copyOf(list);
    }

    public String source() {
        return source;
    }

    /** One line per problem, prefixed with the source file. */
    public String render() {
        StringBuilder b = new StringBuilder();
        for (Problem p : list) {
            b.append(source).append(": ").append(p).append('\n');
        }
        return b.toString();
    }
}
