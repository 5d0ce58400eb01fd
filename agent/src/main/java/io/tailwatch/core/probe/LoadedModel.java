package io.tailwatch.core.probe;

import io.tailwatch.core.kv.ModelShape;

/**
 * A model the engine reports as loaded. Figures the engine does not report are null.
 *
 * @param shape attention shape for KV arithmetic, when the engine reveals it (Ollama /api/show)
 */
public record LoadedModel(String name, String digest, Long sizeBytes, Long vramBytes, Long contextLength,
                          String expiresAt, ModelShape shape) {
    /** The engine's figures, range-checked where they enter (out of range is unknown, and counted). */
    public LoadedModel {
        sizeBytes = InputRange.count(SOURCE, "size", sizeBytes, InputRange.MAX_MODEL_BYTES);
        vramBytes = InputRange.count(SOURCE, "size_vram", vramBytes, InputRange.MAX_MODEL_BYTES);
        contextLength = InputRange.count(SOURCE, "context_length", contextLength, InputRange.MAX_CONTEXT);
    }

    private static final String SOURCE = "engine_models";
}
