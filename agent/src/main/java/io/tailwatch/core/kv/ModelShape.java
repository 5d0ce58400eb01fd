package io.tailwatch.core.kv;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The attention shape of a model, as far as KV-cache size goes: per layer the number of KV heads,
 * and the key and value lengths per head. Read from Ollama's {@code /api/show} {@code model_info}
 * (GGUF metadata, keys prefixed by the architecture name).
 */
public record ModelShape(String architecture, int layers, List<Integer> kvHeadsPerLayer, int keyLength, int valueLength,
                         Long contextLength) {

    public ModelShape {
        kvHeadsPerLayer = List.copyOf(kvHeadsPerLayer);
        if (layers <= 0 || kvHeadsPerLayer.size() != layers || keyLength <= 0 || valueLength <= 0) {
            throw new IllegalArgumentException("inconsistent model shape: " + layers + " layers, kv heads "
                    + kvHeadsPerLayer + ", key " + keyLength + ", value " + valueLength);
        }
    }

    /**
     * Parses {@code model_info}. Throws IllegalArgumentException naming the missing or bad key when
     * the shape cannot be known (then no KV figures are reported: unknown is not zero).
     */
    public static ModelShape fromModelInfo(JsonNode info) {
        if (info == null || !info.isObject()) {
            throw new IllegalArgumentException("model_info missing");
        }
        JsonNode archNode = info.get("general.architecture");
        if (archNode == null || !archNode.isTextual() || archNode.asText().isBlank()) {
            throw new IllegalArgumentException("model_info has no general.architecture");
        }
        String a = archNode.asText();
        int layers = positive(info, a + ".block_count");
        List<Integer> heads = perLayer(info, a + ".attention.head_count", layers, null);
        List<Integer> kvHeads = perLayer(info, a + ".attention.head_count_kv", layers, heads);
        int maxHeads = heads.stream().mapToInt(Integer::intValue).max().orElse(0);
        Integer keyLength = optionalInt(info, a + ".attention.key_length");
        Integer valueLength = optionalInt(info, a + ".attention.value_length");
        if (keyLength == null || valueLength == null) {
            if (maxHeads <= 0) {
                throw new IllegalArgumentException(a + ".attention.head_count must be positive to derive the head size");
            }
            int embedding = positive(info, a + ".embedding_length");
            int headDim = embedding / maxHeads;
            keyLength = keyLength == null ? headDim : keyLength;
            valueLength = valueLength == null ? headDim : valueLength;
        }
        Integer ctx = optionalInt(info, a + ".context_length");
        return new ModelShape(a, layers, kvHeads, keyLength, valueLength, ctx == null ? null : ctx.longValue());
    }

    private static int positive(JsonNode info, String key) {
        JsonNode n = info.get(key);
        if (n == null || !n.isNumber() || n.asLong() <= 0 || n.asLong() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("model_info " + key + " missing or not a positive integer");
        }
        return n.asInt();
    }

    private static Integer optionalInt(JsonNode info, String key) {
        JsonNode n = info.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isNumber() || n.asLong() <= 0 || n.asLong() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("model_info " + key + " is not a positive integer");
        }
        return n.asInt();
    }

    /** A per-layer count given as one integer for all layers or as an array with one per layer. */
    private static List<Integer> perLayer(JsonNode info, String key, int layers, List<Integer> fallback) {
        JsonNode n = info.get(key);
        if (n == null || n.isNull()) {
            if (fallback != null) {
                return fallback;
            }
            throw new IllegalArgumentException("model_info " + key + " missing");
        }
        List<Integer> out = new ArrayList<>(layers);
        if (n.isNumber()) {
            if (n.asLong() < 0) {
                throw new IllegalArgumentException("model_info " + key + " is negative");
            }
            for (int i = 0; i < layers; i++) {
                out.add(n.asInt());
            }
            return out;
        }
        if (n.isArray()) {
            if (n.size() != layers) {
                throw new IllegalArgumentException("model_info " + key + " has " + n.size() + " entries for " + layers + " layers");
            }
            for (JsonNode x : n) {
                if (!x.isNumber() || x.asLong() < 0) {
                    throw new IllegalArgumentException("model_info " + key + " has a non-numeric entry");
                }
                out.add(x.asInt());
            }
            return out;
        }
        throw new IllegalArgumentException("model_info " + key + " is neither a number nor an array");
    }
}
