package io.tailwatch.tools.capacity;

import io.tailwatch.core.config.EngineConfig;
import java.util.Locale;

/**
 * Whether a ladder's single-request p95 may become the alert baseline of a probe scenario
 * (--save-baseline): only when it describes what the daemon measures, i.e. a configured engine (an
 * ad-hoc --url engine has a host:port name no daemon watches), a known model, a scenario of that engine
 * probing with the same prompt and output sizes as the ladder, and a clean concurrency-1 step
 * ({@link LadderResult#baselineStep()}).
 */
public final class BaselineHandover {
    private BaselineHandover() {
    }

    /**
     * Why the ladder's concurrency-1 p95 must not become the baseline; null when it may.
     *
     * @param engine the configured engine the ladder ran against, null for an --url engine
     */
    public static String refusal(EngineConfig engine, String model, String scenario, int promptTokens, int maxTokens,
                                 LadderResult r) {
        if (engine == null) {
            return "--url names an engine the agent does not watch; use --engine NAME from the config";
        }
        if (model == null) {
            return "the model is unknown (give --model)";
        }
        EngineConfig.Scenario sc = engine.scenarios().stream().filter(x -> x.name().equals(scenario)).findFirst()
                .orElse(null);
        if (sc == null) {
            return "engine " + engine.name() + " has no scenario " + scenario;
        }
        if (sc.promptTokens() != promptTokens || sc.maxTokens() != maxTokens) {
            return String.format(Locale.ROOT, "scenario %s probes with %d prompt / %d max tokens, this ladder used %d / %d "
                    + "(run it with --prompt-tokens %d --max-tokens %d)", scenario, sc.promptTokens(), sc.maxTokens(),
                    promptTokens, maxTokens, sc.promptTokens(), sc.maxTokens());
        }
        if (r.baselineStep() == null) {
            return "no clean, complete concurrency-1 step (every request successful) to take it from";
        }
        return null;
    }
}
