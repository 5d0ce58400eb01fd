package io.tailwatch.tools.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/** Small helpers shared by the report writers: atomic file replacement and JSON numbers without NaN. */
final class ReportFiles {
    private ReportFiles() {
    }

    /** Writes to a temporary sibling, then renames over the target, so a reader never sees half a file. */
    static void writeAtomically(Path target, byte[] content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {
            Files.write(tmp, content);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static void writeAtomically(Path target, String text) throws IOException {
        writeAtomically(target, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Puts a number, or JSON null when it is unknown (NaN, infinite or null). */
    static void num(ObjectNode node, String key, Double v) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            node.putNull(key);
        } else {
            node.put(key, v);
        }
    }

    static void num(ObjectNode node, String key, double v) {
        num(node, key, Double.valueOf(v));
    }

    static JsonNode tree(Object value) {
        if (value == null) {
            return Json.MAPPER.nullNode();
        }
        if (value instanceof Map<?, ?> m) {
            ObjectNode o = Json.MAPPER.createObjectNode();
            m.forEach((k, v) -> o.set(String.valueOf(k), tree(v)));
            return o;
        }
        if (value instanceof List<?> l) {
            ArrayNode a = Json.MAPPER.createArrayNode();
            l.forEach(v -> a.add(tree(v)));
            return a;
        }
        if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
            return Json.MAPPER.nullNode();
        }
        return Json.MAPPER.valueToTree(value);
    }

    static String csv(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            return "";
        }
        String s = String.valueOf(v);
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    static String fmt(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        return String.format(java.util.Locale.ROOT, "%." + decimals + "f", v);
    }

    static String fmt(Double v, int decimals) {
        return v == null ? "n/a" : fmt(v.doubleValue(), decimals);
    }
}
