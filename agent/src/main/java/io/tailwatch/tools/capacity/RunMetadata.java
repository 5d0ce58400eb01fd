package io.tailwatch.tools.capacity;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a capacity result must carry so a reader can trust and reproduce it: the tool, the engine
 * and model (digest, format and quantization where the engine tells), the host (chip, OS, memory,
 * thermal state), when it ran, the parameters and a hash of the prompt shape, and how many requests the
 * engine generates at once where it says (which decides how latency grows with concurrency). Null = not
 * known.
 */
public record RunMetadata(String toolVersion, String engine, String engineApi, String engineUrl,
                          String engineVersion, String model, String modelDigest, String modelFormat,
                          String quantization, String host, String chip, String os, Double memoryBytes,
                          String thermal, String memoryPressure, Instant start, Instant end,
                          Map<String, Object> parameters, String promptSha256, Integer engineParallelism,
                          String engineParallelismSource) {

    /** Without the engine's parallelism (unknown). */
    public RunMetadata(String toolVersion, String engine, String engineApi, String engineUrl,
                       String engineVersion, String model, String modelDigest, String modelFormat,
                       String quantization, String host, String chip, String os, Double memoryBytes,
                       String thermal, String memoryPressure, Instant start, Instant end,
                       Map<String, Object> parameters, String promptSha256) {
        this(toolVersion, engine, engineApi, engineUrl, engineVersion, model, modelDigest, modelFormat, quantization, host,
                chip, os, memoryBytes, thermal, memoryPressure, start, end, parameters, promptSha256, null, null);
    }

    public RunMetadata {
        parameters = parameters == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * SHA-256 of the prompt the probes send for {@code tokens}, with its random nonce masked: equal
     * hashes mean the same prompt shape (the nonce only defeats prompt caches).
     */
    public static String promptHash(int tokens) {
        String prompt = io.tailwatch.core.probe.PromptFactory.prompt(tokens).replaceFirst("^Probe [0-9a-f]+\\.", "Probe <nonce>.");
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(prompt.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public RunMetadata withTimes(Instant s, Instant e) {
        return new RunMetadata(toolVersion, engine, engineApi, engineUrl, engineVersion, model, modelDigest, modelFormat,
                quantization, host, chip, os, memoryBytes, thermal, memoryPressure, s, e, parameters, promptSha256,
                engineParallelism, engineParallelismSource);
    }

    /** With the engine's version, as learned during the run (mlx_lm tells it only in its answers' system_fingerprint). */
    public RunMetadata withEngineVersion(String version) {
        return new RunMetadata(toolVersion, engine, engineApi, engineUrl, version, model, modelDigest, modelFormat,
                quantization, host, chip, os, memoryBytes, thermal, memoryPressure, start, end, parameters, promptSha256,
                engineParallelism, engineParallelismSource);
    }

    /**
     * With the model that answered, as the answers' {@code model} field tells it, where the run's model is not
     * known; never the placeholder ({@code default_model}) mlx_lm.server's answers echo to a request naming none.
     */
    public RunMetadata withServedModel(String served) {
        if (served == null || model != null || io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL.equals(served)) {
            return this;
        }
        return new RunMetadata(toolVersion, engine, engineApi, engineUrl, engineVersion, served, modelDigest, modelFormat,
                quantization, host, chip, os, memoryBytes, thermal, memoryPressure, start, end, parameters, promptSha256,
                engineParallelism, engineParallelismSource);
    }

    /** The fields in report order with snake_case keys; unknown values are kept as null. */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool_version", toolVersion);
        m.put("engine", engine);
        m.put("engine_api", engineApi);
        m.put("engine_url", engineUrl);
        m.put("engine_version", engineVersion);
        m.put("engine_parallelism", engineParallelism);
        m.put("engine_parallelism_source", engineParallelismSource);
        m.put("model", model);
        m.put("model_digest", modelDigest);
        m.put("model_format", modelFormat);
        m.put("quantization", quantization);
        m.put("host", host);
        m.put("chip", chip);
        m.put("os", os);
        m.put("memory_bytes", memoryBytes == null ? null : memoryBytes.longValue());
        m.put("thermal", thermal);
        m.put("memory_pressure", memoryPressure);
        m.put("start", start == null ? null : start.toString());
        m.put("end", end == null ? null : end.toString());
        m.put("parameters", parameters);
        m.put("prompt_sha256", promptSha256);
        return m;
    }
}
