package io.tailwatch.kv;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * The attention shape that decides KV-cache size: layer count, KV heads per layer, key and value
 * head sizes. Built from explicit figures or from Ollama's {@code /api/show} {@code model_info}.
 *
 * @param architecture  the {@code general.architecture} name, or "explicit"
 * @param contextLength the model's trained context length, null when unknown
 */
public record KvArchitecture(String architecture, int layers, int[] kvHeadsPerLayer, int keyLength, int valueLength,
                             Long contextLength) {

    public KvArchitecture {
        if (layers <= 0) {
            throw new IllegalArgumentException("layers must be > 0, was " + layers);
        }
        if (kvHeadsPerLayer == null || kvHeadsPerLayer.length != layers) {
            throw new IllegalArgumentException("kvHeadsPerLayer must have one entry per layer (" + layers + ")");
        }
        kvHeadsPerLayer = kvHeadsPerLayer.clone();
    }

    /** Same KV head count in every layer and one head size for keys and values. */
    public static KvArchitecture uniform(int layers, int kvHeads, int headDim) {
        if (layers <= 0) {
            throw new IllegalArgumentException("layers must be > 0, was " + layers);
        }
        int[] heads = new int[layers];
        Arrays.fill(heads, kvHeads);
        return new KvArchitecture("explicit", layers, heads, headDim, headDim, null);
    }

    @Override
    public int[] kvHeadsPerLayer() {
        return kvHeadsPerLayer.clone();
    }

    /** KV bytes per token of context for a cache element size (f16 2, q8_0 1, ...). */
    public long bytesPerToken(double bytesPerElement) {
        return KvCacheMath.bytesPerToken(kvHeadsPerLayer, keyLength, valueLength, bytesPerElement);
    }

    /** True when every layer has the same KV head count. */
    public boolean uniformHeads() {
        return Arrays.stream(kvHeadsPerLayer).distinct().count() == 1;
    }

    /**
     * Reads an Ollama {@code POST /api/show} response (or just its {@code model_info} object). Keys are
     * prefixed with {@code general.architecture}: {@code <arch>.block_count},
     * {@code <arch>.attention.head_count}, {@code <arch>.attention.head_count_kv} (number or per-layer
     * array; defaults to head_count), {@code <arch>.attention.key_length} and {@code value_length}
     * (default {@code embedding_length / head_count}, the largest head count when it is per layer).
     *
     * @throws IllegalArgumentException naming the missing or malformed key
     */
    public static KvArchitecture fromOllamaShow(JsonNode show) {
        if (show == null || !show.isObject()) {
            throw new IllegalArgumentException("/api/show: expected a JSON object");
        }
        JsonNode info = show.has("model_info") ? show.get("model_info") : show;
        if (info == null || !info.isObject()) {
            throw new IllegalArgumentException("/api/show: model_info is missing or not an object");
        }
        JsonNode archNode = info.get("general.architecture");
        if (archNode == null || !archNode.isTextual() || archNode.asText().isBlank()) {
            throw new IllegalArgumentException("/api/show: model_info has no general.architecture");
        }
        String arch = archNode.asText();
        int layers = requiredInt(info, arch + ".block_count");
        int[] heads = perLayer(info, arch + ".attention.head_count", layers, null);
        int[] kvHeads = perLayer(info, arch + ".attention.head_count_kv", layers, heads);
        if (kvHeads == null) {
            throw new IllegalArgumentException("/api/show: model_info has neither " + arch
                    + ".attention.head_count_kv nor " + arch + ".attention.head_count");
        }
        Integer keyLength = optionalInt(info, arch + ".attention.key_length");
        Integer valueLength = optionalInt(info, arch + ".attention.value_length");
        if (keyLength == null || valueLength == null) {
            int defaultLength = defaultHeadLength(info, arch, heads);
            keyLength = keyLength == null ? defaultLength : keyLength;
            valueLength = valueLength == null ? defaultLength : valueLength;
        }
        Integer context = optionalInt(info, arch + ".context_length");
        return new KvArchitecture(arch, layers, kvHeads, keyLength, valueLength,
                context == null ? null : context.longValue());
    }

    private static int defaultHeadLength(JsonNode info, String arch, int[] heads) {
        String embeddingKey = arch + ".embedding_length";
        int embedding = requiredInt(info, embeddingKey);
        if (heads == null) {
            throw new IllegalArgumentException("/api/show: " + arch + ".attention.key_length is missing and "
                    + arch + ".attention.head_count is needed to derive it");
        }
        int maxHeads = Arrays.stream(heads).max().orElse(0);
        if (maxHeads <= 0) {
            throw new IllegalArgumentException("/api/show: " + arch + ".attention.head_count must be > 0");
        }
        return embedding / maxHeads;
    }

    private static int[] perLayer(JsonNode info, String key, int layers, int[] fallback) {
        JsonNode node = info.get(key);
        if (node == null || node.isNull()) {
            return fallback;
        }
        int[] out = new int[layers];
        if (node.isArray()) {
            if (node.size() != layers) {
                throw new IllegalArgumentException("/api/show: " + key + " has " + node.size()
                        + " entries but block_count is " + layers);
            }
            for (int i = 0; i < layers; i++) {
                JsonNode v = node.get(i);
                if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0) {
                    throw new IllegalArgumentException("/api/show: " + key + "[" + i + "] is not a non-negative integer");
                }
                out[i] = v.asInt();
            }
            return out;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.asInt() < 0) {
            throw new IllegalArgumentException("/api/show: " + key + " is not a non-negative integer or array");
        }
        Arrays.fill(out, node.asInt());
        return out;
    }

    private static int requiredInt(JsonNode info, String key) {
        Integer v = optionalInt(info, key);
        if (v == null) {
            throw new IllegalArgumentException("/api/show: model_info has no " + key
                    + " (keys present: " + keySample(info) + ")");
        }
        if (v <= 0) {
            throw new IllegalArgumentException("/api/show: " + key + " must be > 0, was " + v);
        }
        return v;
    }

    private static Integer optionalInt(JsonNode info, String key) {
        JsonNode node = info.get(key);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw new IllegalArgumentException("/api/show: " + key + " is not an integer: " + node);
        }
        return node.asInt();
    }

    private static String keySample(JsonNode info) {
        StringBuilder sb = new StringBuilder();
        Iterator<Map.Entry<String, JsonNode>> it = info.fields();
        int n = 0;
        while (it.hasNext() && n < 8) {
            if (n++ > 0) {
                sb.append(", ");
            }
            sb.append(it.next().getKey());
        }
        if (it.hasNext()) {
            sb.append(", ...");
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvArchitecture k && k.architecture.equals(architecture) && k.layers == layers
                && Arrays.equals(k.kvHeadsPerLayer, kvHeadsPerLayer) && k.keyLength == keyLength
                && k.valueLength == valueLength && java.util.Objects.equals(k.contextLength, contextLength);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(architecture, layers, Arrays.hashCode(kvHeadsPerLayer), keyLength, valueLength,
                contextLength);
    }

    @Override
    public String toString() {
        return "KvArchitecture[" + architecture + ", layers=" + layers + ", kvHeads="
                + (uniformHeads() ? String.valueOf(kvHeadsPerLayer[0]) : Arrays.toString(kvHeadsPerLayer))
                + ", keyLength=" + keyLength + ", valueLength=" + valueLength + ", context=" + contextLength + "]";
    }
}
