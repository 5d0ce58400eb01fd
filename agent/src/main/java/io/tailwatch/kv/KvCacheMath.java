package io.tailwatch.kv;

/**
 * KV-cache memory arithmetic for unified-memory hosts. Bytes per token = 2 (K and V) x KV heads x
 * head dimension x bytes per element x layers; the safe cache size is what is left of memory after
 * the OS reserve, the weights and the runtime, times a safety factor, divided by bytes per token.
 */
public final class KvCacheMath {
    public static final long GIB = 1L << 30;
    /** Memory macOS and its services keep for themselves. */
    public static final long DEFAULT_OS_RESERVE = 10 * GIB;
    /** Engine runtime outside weights and KV cache (Python, Metal buffers, allocator slack). */
    public static final long DEFAULT_RUNTIME = 2 * GIB;
    public static final double DEFAULT_SAFETY = 0.8;

    private KvCacheMath() {
    }

    /** Bytes of KV cache one token occupies across all layers. */
    public static long bytesPerToken(int layers, int kvHeads, int headDim, double bytesPerElement) {
        positive("layers", layers);
        positive("kv heads", kvHeads);
        positive("head dim", headDim);
        if (!(bytesPerElement > 0) || Double.isInfinite(bytesPerElement)) {
            throw new IllegalArgumentException("bytes per element must be > 0, got " + bytesPerElement);
        }
        return Math.round(2.0 * kvHeads * headDim * bytesPerElement * layers);
    }

    /**
     * The largest KV cache, in tokens, that fits: (memory - os reserve - weights - runtime) x safety /
     * bytes per token, rounded down. Throws when nothing is left for the cache.
     */
    public static long safeMaxTokens(long memoryBytes, long weightsBytes, long osReserveBytes, long runtimeBytes,
                                     double safety, long bytesPerToken) {
        if (memoryBytes <= 0) {
            throw new IllegalArgumentException("memory must be > 0, got " + memoryBytes);
        }
        if (weightsBytes < 0 || osReserveBytes < 0 || runtimeBytes < 0) {
            throw new IllegalArgumentException("weights, OS reserve and runtime must not be negative");
        }
        if (!(safety > 0 && safety <= 1)) {
            throw new IllegalArgumentException("safety factor must be in (0, 1], got " + safety);
        }
        if (bytesPerToken <= 0) {
            throw new IllegalArgumentException("bytes per token must be > 0, got " + bytesPerToken);
        }
        long free = memoryBytes - osReserveBytes - weightsBytes - runtimeBytes;
        if (free <= 0) {
            throw new IllegalArgumentException("no memory left for the KV cache: memory " + memoryBytes
                    + " B - OS reserve " + osReserveBytes + " B - weights " + weightsBytes + " B - runtime "
                    + runtimeBytes + " B = " + free + " B");
        }
        return (long) Math.floor(free * safety / bytesPerToken);
    }

    private static void positive(String what, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be > 0, got " + v);
        }
    }
}
