package io.tailwatch.tools.sim;

import java.time.Duration;

/**
 * How the simulated engine behaves.
 *
 * @param ttft            time from a slot taking the request (after any load) to the first token
 * @param tokensPerSecond decode speed; one token every 1/tokensPerSecond after the first (a late token
 *                        does not make the next ones burst to catch up)
 * @param slots           requests generated at once; more wait, without response headers, as MLX does
 * @param errorRate       share of requests answered HTTP 500
 * @param stallRate       share of requests that pause for {@code stall} once, mid-stream
 * @param loadTime        model load time: Ollama loads on the first request (load_duration), the
 *                        OpenAI flavour loads at start and answers /health 503 meanwhile
 * @param seed            random seed for errors, stalls and the stall position
 * @param batch           0: the serial server of {@code slots}; above 0 (the mlx_lm flavour only): the
 *                        continuous-batching mlx_lm.server of 0.28 and later, generating up to {@code batch}
 *                        requests at once when their {@code model} strings are equal
 * @param hubModels       with {@code batch}: the models of the local Hugging Face cache that /v1/models lists
 *                        before the served one (a request naming one makes the server load it); null: no hub
 *                        directory, so /v1/models answers 200 with an empty body
 * @param stallEvery      when above 0, a fixed stall schedule instead of {@code stallRate}: every
 *                        {@code stallEvery}-th generation (the stallEvery-th, twice that, ...) pauses for
 *                        {@code stall} once, halfway through its tokens, and no other does
 */
public record SimulatorOptions(String model, Duration ttft, double tokensPerSecond, int slots, double errorRate,
                               double stallRate, Duration stall, Duration loadTime, long seed, int batch,
                               java.util.List<String> hubModels, int stallEvery) {

    public SimulatorOptions(String model, Duration ttft, double tokensPerSecond, int slots, double errorRate,
                            double stallRate, Duration stall, Duration loadTime, long seed) {
        this(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, seed, 0, null, 0);
    }

    public SimulatorOptions {
        if (tokensPerSecond <= 0 || tokensPerSecond > 100_000) {
            throw new IllegalArgumentException("tokens per second must be in (0, 100000]");
        }
        if (slots < 1 || slots > 64) {
            throw new IllegalArgumentException("slots must be 1..64");
        }
        if (errorRate < 0 || errorRate > 1 || stallRate < 0 || stallRate > 1) {
            throw new IllegalArgumentException("rates must be between 0 and 1");
        }
        if (ttft.isNegative() || stall.isNegative() || loadTime.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        if (batch < 0 || batch > 256) {
            throw new IllegalArgumentException("decode concurrency must be 1..256");
        }
        if (hubModels != null) {
            if (hubModels.size() > 1000) {
                throw new IllegalArgumentException("at most 1000 cached models");
            }
            hubModels = java.util.List.copyOf(hubModels);
        }
        if (stallEvery < 0) {
            throw new IllegalArgumentException("stall schedule must be 0 (off) or every N >= 1 generations");
        }
    }

    /** Cached models the batching mlx_lm flavour lists by default (a typical Mac's Hugging Face cache). */
    public static final java.util.List<String> DEFAULT_HUB_MODELS = java.util.List.of(
            "mlx-community/Qwen3-0.6B-4bit", "mlx-community/gemma-3-1b-it-4bit", "mlx-community/SmolLM2-135M-Instruct-8bit");

    /** The continuous-batching mlx_lm.server (0.28 and later): {@code batch} requests at once, {@code hub} cached. */
    public SimulatorOptions withBatching(int decodeConcurrency, java.util.List<String> hub) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, seed,
                decodeConcurrency, hub, stallEvery);
    }

    public boolean batching() {
        return batch > 0;
    }

    public static final String DEFAULT_OLLAMA_MODEL = "sim-llama3:8b";
    public static final String DEFAULT_OPENAI_MODEL = "mlx-community/Sim-Llama-3-8B-4bit";

    public static SimulatorOptions defaults(String api) {
        return new SimulatorOptions("ollama".equals(api) ? DEFAULT_OLLAMA_MODEL : DEFAULT_OPENAI_MODEL,
                Duration.ofMillis(150), 35, 1, 0, 0, Duration.ofSeconds(2), Duration.ZERO, System.nanoTime());
    }

    public SimulatorOptions withModel(String m) {
        return new SimulatorOptions(m, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, seed, batch, hubModels, stallEvery);
    }

    public SimulatorOptions withTiming(Duration t, double tps) {
        return new SimulatorOptions(model, t, tps, slots, errorRate, stallRate, stall, loadTime, seed, batch, hubModels, stallEvery);
    }

    public SimulatorOptions withSlots(int n) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, n, errorRate, stallRate, stall, loadTime, seed, batch, hubModels, stallEvery);
    }

    public SimulatorOptions withFaults(double errors, double stalls, Duration stallFor) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errors, stalls, stallFor, loadTime, seed, batch, hubModels, stallEvery);
    }

    public SimulatorOptions withLoadTime(Duration load) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, load, seed, batch, hubModels, stallEvery);
    }

    public SimulatorOptions withSeed(long s) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, s, batch, hubModels, stallEvery);
    }

    /** Every {@code n}-th generation stalls for {@code stallFor} halfway through, and no other (no random stalls). */
    public SimulatorOptions withStallEvery(int n, Duration stallFor) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, 0, stallFor, loadTime, seed, batch,
                hubModels, n);
    }
}
