package io.tailwatch.core.probe;

import io.tailwatch.core.kv.ModelShape;

/**
 * A model the engine reports as loaded. Figures the engine does not report are null.
 *
 * @param shape attention shape for KV arithmetic, when the engine reveals it (Ollama /api/show)
 */
public record LoadedModel(String name, String digest, Long sizeBytes, Long vramBytes, Long contextLength,
                          String expiresAt, ModelShape shape) {
}
