package io.tailwatch.core.probe;

/**
 * What an engine says about one model's files: each figure null when the engine does not tell.
 *
 * @param digest       the content digest of the model's weights (Ollama's sha256)
 * @param format       the weights' file format, e.g. gguf
 * @param quantization the weights' quantization, e.g. Q4_K_M
 */
public record ModelFacts(String digest, String format, String quantization) {
    public static final ModelFacts UNKNOWN = new ModelFacts(null, null, null);
}
