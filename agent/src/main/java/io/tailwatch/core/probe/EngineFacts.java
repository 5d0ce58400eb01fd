package io.tailwatch.core.probe;

import java.time.Duration;

/**
 * What an engine says about itself and its model, in one record for every place that shows or stores
 * it (the daemon's version metric and status, the page, ladder and bench reports, the history): the
 * engine's version (Ollama {@code /api/version}, llama.cpp {@code /props build_info}, vLLM
 * {@code /version}), the model's digest, format and quantization (Ollama {@code /api/show} and
 * {@code /api/tags}; llama.cpp's GGUF file from {@code /props model_path}; LM Studio's
 * {@code /api/v0/models}), and how many requests it generates at once (llama.cpp's {@code total_slots}).
 * Everything is read through the engine client, every request bounded in bytes and time; each figure
 * is null when the engine does not tell.
 *
 * @param parallelism       requests the engine generates at once, as it reports it (null: it does not say)
 * @param parallelismSource where that figure comes from, e.g. {@code llama.cpp /props total_slots}
 */
public record EngineFacts(String version, String provider, String modelDigest, String modelFormat,
                          String quantization, Integer parallelism, String parallelismSource) {

    public static final EngineFacts UNKNOWN = new EngineFacts(null, null, null, null, null, null, null);

    /** The engine's figures, all within {@code deadline}. */
    public static EngineFacts ask(EngineClient client, String model, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        EngineHealth h = client.health(deadline);
        String digest = null;
        if (model != null) {
            for (LoadedModel m : h.models()) {
                if (model.equals(m.name())) {
                    digest = m.digest();
                }
            }
        }
        ModelFacts f = model == null ? ModelFacts.UNKNOWN : client.modelFacts(model, AbstractEngineClient.left(end));
        EngineClient.Parallelism p = client.parallelism(AbstractEngineClient.left(end));
        return new EngineFacts(h.version(), h.provider(), digest != null ? digest : f.digest(), f.format(),
                f.quantization(), p == null ? null : p.slots(), p == null ? null : p.source());
    }
}
