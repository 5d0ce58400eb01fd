package io.tailwatch.core.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A YAML value with the position it was read from, so every problem can name its line and column. */
public sealed interface ConfigNode {
    int line();

    int column();

    /** Human name of the node's kind, for "expected X, got Y" messages. */
    String kind();

    record MapNode(int line, int column, Map<String, Entry> entries) implements ConfigNode {
        public MapNode {
            entries = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        }

        public String kind() {
            return "a mapping";
        }
    }

    record Entry(int line, int column, ConfigNode value) {
    }

    record ListNode(int line, int column, List<ConfigNode> items) implements ConfigNode {
        public ListNode {
            items = List.copyOf(items);
        }

        public String kind() {
            return "a list";
        }
    }

    /** A scalar; {@code quoted} is true when it was a string token (so "true" in quotes stays text). */
    record Scalar(int line, int column, String text, boolean quoted) implements ConfigNode {
        public String kind() {
            return "a scalar";
        }
    }

    record Null(int line, int column) implements ConfigNode {
        public String kind() {
            return "nothing";
        }
    }
}
