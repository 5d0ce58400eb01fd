package io.tailwatch.testing;

import java.nio.file.Path;

/**
 * The config block the end-to-end tests share: an OpenAI-style and an Ollama simulator probed every
 * second, SwapUsedHigh without a hold time, and a baseline file learned after three probes. It ends
 * inside {@code alerts:}, so a caller may add more {@code alerts} keys indented by two spaces.
 */
public final class TwoEngines {
    private TwoEngines() {
    }

    public static String config(int openaiPort, int ollamaPort, Path baselines) {
        return """
                engines:
                  - name: sim
                    api: openai
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 500ms}
                    scenarios:
                      - {name: interactive, interval: 1s, prompt_tokens: 16, max_tokens: 8, timeouts: {connect: 300ms, first_token: 800ms, total: 900ms}}
                  - name: ollama
                    api: ollama
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 500ms}
                    scenarios:
                      - {name: interactive, interval: 1s, prompt_tokens: 16, max_tokens: 8, timeouts: {connect: 300ms, first_token: 800ms, total: 900ms}}
                rules:
                  SwapUsedHigh: {for: 0s}
                alerts:
                  baseline: {file: %s, min_samples: 3}
                """.formatted(openaiPort, ollamaPort, baselines);
    }
}
