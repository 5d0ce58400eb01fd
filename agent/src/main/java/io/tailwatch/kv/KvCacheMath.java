package io.tailwatch.kv;

import java.util.Locale;

/**
 * KV-cache arithmetic: bytes per token = sum over layers of (key_length + value_length) x KV heads x
 * bytes per element, the bytes a context of a given length needs, and how many more tokens fit in
 * a memory budget. Pure functions; used by the engine probes and the kv-budget command.
 */
public final class KvCacheMath {
    /** Bytes per cached element for llama.cpp/Ollama cache types (OLLAMA_KV_CACHE_TYPE) and MLX dtypes. */
    public static double bytesPerElement(String cacheType) {
        return switch (cacheType == null ? "f16" : cacheType.toLowerCase(Locale.ROOT)) {
            case "f32", "float32" -> 4.0;
            case "f16", "bf16", "float16", "bfloat16" -> 2.0;
            case "q8_0", "q8", "8bit" -> 1.0;
            case "q4_0", "q4", "4bit" -> 0.5;
            default -> throw new IllegalArgumentException("unknown KV cache type '" + cacheType
                    + "' (f32, f16, bf16, q8_0, q4_0)");
        };
    }

    private KvCacheMath() {
    }

    public static double bytesPerToken(ModelShape shape, double bytesPerElement) {
        long perToken = 0;
        for (int kvHeads : shape.kvHeadsPerLayer()) {
            perToken += (long) (shape.keyLength() + shape.valueLength()) * kvHeads;
        }
        return perToken * bytesPerElement;
    }

    public static double contextBytes(ModelShape shape, double bytesPerElement, long tokens) {
        return bytesPerToken(shape, bytesPerElement) * tokens;
    }

    /** Tokens of KV cache that fit in {@code availableBytes}; 0 when nothing fits. */
    public static long headroomTokens(double bytesPerToken, double availableBytes) {
        if (bytesPerToken <= 0) {
            throw new IllegalArgumentException("bytes per token must be positive");
        }
        return availableBytes <= 0 ? 0 : (long) Math.floor(availableBytes / bytesPerToken);
    }

    /**
     * A safe KV-cache size in tokens for a host: what is left of total memory after the OS reserve,
     * the weights and the runtime, times a safety factor (e.g. 0.8), divided by bytes per token.
     */
    public static long safeMaxTokens(double totalBytes, double osReserveBytes, double weightsBytes,
                                     double runtimeBytes, double safetyFactor, double bytesPerToken) {
        double budget = (totalBytes - osReserveBytes - weightsBytes - runtimeBytes) * safetyFactor;
        return headroomTokens(bytesPerToken, budget);
    }
}
