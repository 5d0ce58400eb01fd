package io.tailwatch.core.kv;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * KV-cache memory arithmetic. Pure functions, no I/O.
 *
 * <p>One token of context costs, in every attention layer, a key vector and a value vector per KV head:
 * {@code sum over layers of (key_length + value_length) x kv_heads x bytes_per_element}. With one head
 * size for keys and values this is the familiar {@code 2 x kv_heads x head_dim x bytes x layers}.
 *
 * <p>The safe KV budget is what is left of memory after the OS, the weights and the runtime, times a
 * safety factor: {@code floor((memory - os - weights - runtime) x safety / bytes_per_token)} tokens.
 */
public final class KvCacheMath {
    private KvCacheMath() {
    }

    /** Bytes per token with the same head count and head size in every layer (K and V of {@code headDim}). */
    public static long bytesPerToken(int layers, int kvHeads, int headDim, double bytesPerElement) {
        positive("layers", layers);
        nonNegative("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("bytesPerElement", bytesPerElement);
        return roundUp(2.0 * kvHeads * headDim * bytesPerElement * layers);
    }

    /**
     * Bytes per token in the general per-layer form: sum over layers of
     * {@code (keyLength + valueLength) x kvHeadsPerLayer[i] x bytesPerElement}. A layer with 0 KV heads
     * (no attention, e.g. a recurrent layer of a hybrid model) contributes nothing.
     */
    public static long bytesPerToken(int[] kvHeadsPerLayer, int keyLength, int valueLength, double bytesPerElement) {
        if (kvHeadsPerLayer == null || kvHeadsPerLayer.length == 0) {
            throw new IllegalArgumentException("kvHeadsPerLayer must list at least one layer");
        }
        positive("keyLength", keyLength);
        positive("valueLength", valueLength);
        positive("bytesPerElement", bytesPerElement);
        long headSum = 0;
        for (int i = 0; i < kvHeadsPerLayer.length; i++) {
            if (kvHeadsPerLayer[i] < 0) {
                throw new IllegalArgumentException("kvHeadsPerLayer[" + i + "] must be >= 0, was " + kvHeadsPerLayer[i]);
            }
            headSum += kvHeadsPerLayer[i];
        }
        return roundUp((double) headSum * ((long) keyLength + valueLength) * bytesPerElement);
    }

    /** KV bytes held by {@code tokens} tokens of context. */
    public static long contextBytes(long tokens, long bytesPerToken) {
        nonNegative("tokens", tokens);
        nonNegative("bytesPerToken", bytesPerToken);
        return Math.multiplyExact(tokens, bytesPerToken);
    }

    /**
     * The largest KV cache, in tokens, that fits into what memory leaves after the OS reserve, the
     * weights and the runtime, scaled by {@code safety} (0 < safety <= 1). 0 when nothing is left.
     */
    public static long safeMaxTokens(long memoryBytes, long weightsBytes, long osReserveBytes, long runtimeBytes,
                                     double safety, long bytesPerToken) {
        positive("memoryBytes", memoryBytes);
        nonNegative("weightsBytes", weightsBytes);
        nonNegative("osReserveBytes", osReserveBytes);
        nonNegative("runtimeBytes", runtimeBytes);
        if (!(safety > 0 && safety <= 1)) {
            throw new IllegalArgumentException("safety must be in (0, 1], was " + safety);
        }
        positive("bytesPerToken", bytesPerToken);
        long left = memoryBytes - osReserveBytes - weightsBytes - runtimeBytes;
        if (left <= 0) {
            return 0;
        }
        // Exact rational arithmetic for the usual two-decimal factors; doubles would lose the last token.
        BigDecimal budget = BigDecimal.valueOf(left)
                .multiply(BigDecimal.valueOf(safety));
        return budget.divideToIntegralValue(BigDecimal.valueOf(bytesPerToken)).longValueExact();
    }

    /**
     * What memory leaves for the KV cache: {@code floor((memory - os - weights - runtime) x safety)}
     * bytes, 0 when nothing is left.
     */
    public static long budgetBytes(long memoryBytes, long weightsBytes, long osReserveBytes, long runtimeBytes,
                                   double safety) {
        positive("memoryBytes", memoryBytes);
        nonNegative("weightsBytes", weightsBytes);
        nonNegative("osReserveBytes", osReserveBytes);
        nonNegative("runtimeBytes", runtimeBytes);
        if (!(safety > 0 && safety <= 1)) {
            throw new IllegalArgumentException("safety must be in (0, 1], was " + safety);
        }
        long left = memoryBytes - osReserveBytes - weightsBytes - runtimeBytes;
        if (left <= 0) {
            return 0;
        }
        return BigDecimal.valueOf(left).multiply(BigDecimal.valueOf(safety)).setScale(0, java.math.RoundingMode.FLOOR)
                .longValueExact();
    }

    /**
     * KV bytes held by {@code tokens} tokens of context when layer {@code i} keeps at most
     * {@code windows[i]} tokens (0: the whole context) and each layer costs {@code layerBytesPerToken}
     * per token kept. Layers listed in {@code noCache} keep no per-token cache.
     */
    public static long windowedContextBytes(long tokens, long layerBytesPerToken, java.util.List<Integer> windows,
                                            java.util.Collection<Integer> noCache) {
        nonNegative("tokens", tokens);
        nonNegative("layerBytesPerToken", layerBytesPerToken);
        long kept = 0;
        for (int i = 0; i < windows.size(); i++) {
            if (noCache.contains(i)) {
                continue;
            }
            int w = windows.get(i);
            kept = Math.addExact(kept, w > 0 ? Math.min(tokens, w) : tokens);
        }
        return Math.multiplyExact(kept, layerBytesPerToken);
    }

    /**
     * The largest context whose windowed KV cache fits {@code budgetBytes}; -1 when every layer keeps a
     * window that fits, so the cache stops growing and no context length is limited by it.
     */
    public static long windowedSafeMaxTokens(long budgetBytes, long layerBytesPerToken, java.util.List<Integer> windows,
                                             java.util.Collection<Integer> noCache) {
        positive("layerBytesPerToken", layerBytesPerToken);
        long cap = 1L << 34;
        if (windowedContextBytes(cap, layerBytesPerToken, windows, noCache) <= budgetBytes) {
            return -1;
        }
        long lo = 0;
        long hi = cap;
        while (lo < hi) { // largest t with bytes(t) <= budget
            long mid = lo + (hi - lo + 1) / 2;
            if (windowedContextBytes(mid, layerBytesPerToken, windows, noCache) <= budgetBytes) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Bytes per cached element for an engine's KV cache type: f32 4, f16/bf16 2, q8_0 1, q4_0 0.5.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static double bytesPerElement(String cacheType) {
        if (cacheType == null) {
            throw new IllegalArgumentException("cache type is missing; use one of f32, f16, bf16, q8_0, q4_0");
        }
        return switch (cacheType.trim().toLowerCase(Locale.ROOT)) {
            case "f32", "fp32" -> 4.0;
            case "f16", "fp16", "bf16" -> 2.0;
            case "q8_0", "q8" -> 1.0;
            case "q4_0", "q4" -> 0.5;
            default -> throw new IllegalArgumentException(
                    "unknown cache type '" + cacheType + "'; use one of f32, f16, bf16, q8_0, q4_0");
        };
    }

    private static long roundUp(double bytes) {
        if (!Double.isFinite(bytes) || bytes > Long.MAX_VALUE) {
            throw new ArithmeticException("KV bytes per token overflow");
        }
        return (long) Math.ceil(bytes);
    }

    private static void positive(String name, double value) {
        if (!(value > 0) || !Double.isFinite(value)) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }

    private static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + value);
        }
    }

    /** Bytes per token of a model shape read from an engine (per-layer KV heads). */
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
}
