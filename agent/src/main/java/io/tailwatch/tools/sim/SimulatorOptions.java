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
 * @param stallEvery      when above 0, a fixed stall schedule instead of {@code stallRate}: every
 *                        {@code stallEvery}-th generation (the stallEvery-th, twice that, ...) pauses for
 *                        {@code stall} once, halfway through its tokens, and no other does
 */
public record SimulatorOptions(String model, Duration ttft, double tokensPerSecond, int slots, double errorRate,
                               double stallRate, Duration stall, Duration loadTime, long seed, int stallEvery) {

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
        if (stallEvery < 0) {
            throw new IllegalArgumentException("stall schedule must be 0 (off) or every N >= 1 generations");
        }
    }

    /** Stalls drawn at {@code stallRate} (no fixed schedule). */
    public SimulatorOptions(String model, Duration ttft, double tokensPerSecond, int slots, double errorRate,
                            double stallRate, Duration stall, Duration loadTime, long seed) {
        this(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, seed, 0);
    }

    public static final String DEFAULT_OLLAMA_MODEL = "sim-llama3:8b";
    public static final String DEFAULT_OPENAI_MODEL = "mlx-community/Sim-Llama-3-8B-4bit";

    public static SimulatorOptions defaults(String api) {
        return new SimulatorOptions("ollama".equals(api) ? DEFAULT_OLLAMA_MODEL : DEFAULT_OPENAI_MODEL,
                Duration.ofMillis(150), 35, 1, 0, 0, Duration.ofSeconds(2), Duration.ZERO, System.nanoTime());
    }

    public SimulatorOptions withModel(String m) {
        return new SimulatorOptions(m, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, seed, stallEvery);
    }

    public SimulatorOptions withTiming(Duration t, double tps) {
        return new SimulatorOptions(model, t, tps, slots, errorRate, stallRate, stall, loadTime, seed, stallEvery);
    }

    public SimulatorOptions withSlots(int n) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, n, errorRate, stallRate, stall, loadTime, seed, stallEvery);
    }

    public SimulatorOptions withFaults(double errors, double stalls, Duration stallFor) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errors, stalls, stallFor, loadTime, seed, stallEvery);
    }

    public SimulatorOptions withLoadTime(Duration load) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, load, seed, stallEvery);
    }

    public SimulatorOptions withSeed(long s) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, stallRate, stall, loadTime, s, stallEvery);
    }

    /** Every {@code n}-th generation stalls for {@code stallFor} halfway through, and no other (no random stalls). */
    public SimulatorOptions withStallEvery(int n, Duration stallFor) {
        return new SimulatorOptions(model, ttft, tokensPerSecond, slots, errorRate, 0, stallFor, loadTime, seed, n);
    }
}
