package io.tailwatch.testing;

import java.nio.file.Path;

/**
 * The config block the end-to-end tests share: an OpenAI-style and an Ollama simulator probed every
 * second, SwapUsedHigh without a hold time, and a baseline file learned after three probes. It ends
 * inside {@code alerts:}, so a caller may add more {@code alerts} keys indented by two spaces. A test of
 * one simulator takes its {@link #engine} item alone.
 */
public final class TwoEngines {
    private TwoEngines() {
    }

    public static String config(int openaiPort, int ollamaPort, Path baselines) {
        return "engines:\n" + engine("sim", "openai", openaiPort, 8) + engine("ollama", "ollama", ollamaPort, 8) + """
                rules:
                  SwapUsedHigh: {for: 0s}
                alerts:
                  baseline: {file: %s, min_samples: 3}
                """.formatted(baselines);
    }

    /**
     * One item of an {@code engines:} list: NAME of API on 127.0.0.1:PORT, health checked and probed every second
     * with a 16-token prompt asking for MAX_TOKENS tokens, with deadlines a loopback simulator meets.
     */
    public static String engine(String name, String api, int port, int maxTokens) {
        return """
                  - name: %s
                    api: %s
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 500ms}
                    scenarios:
                      - {name: interactive, interval: 1s, prompt_tokens: 16, max_tokens: %d, timeouts: {connect: 300ms, first_token: 800ms, total: 900ms}}
                """.formatted(name, api, port, maxTokens);
    }
}
