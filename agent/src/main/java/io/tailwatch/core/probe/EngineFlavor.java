package io.tailwatch.core.probe;

import java.util.List;
import java.util.Optional;

/**
 * The engines the agent tells apart behind the wire APIs (engine discovery and {@code tailwatch detect}
 * name them): which {@link EngineApi} each speaks, the engine name a discovered one gets, and the
 * process names its memory footprint is found by. One list: adding a flavour is one line here plus how
 * discovery recognises it.
 */
public enum EngineFlavor {
    OLLAMA("ollama", EngineApi.OLLAMA, "ollama", List.of("ollama"), false),
    MLX_LM("mlx_lm", EngineApi.OPENAI, "mlx", List.of("mlx_lm.server", "mlx_lm", "mlx_vlm"), false),
    LLAMACPP("llamacpp", EngineApi.OPENAI, "llamacpp", List.of("llama-server"), true),
    LMSTUDIO("lmstudio", EngineApi.OPENAI, "lmstudio", List.of("LM Studio", "lms"), false),
    VLLM("vllm", EngineApi.OPENAI, "vllm", List.of("vllm"), true),
    /** vllm-mlx: vLLM's API on Apple's MLX, with its own /metrics ({@code vllm_mlx_*}) and /v1/status. */
    VLLM_MLX("vllm_mlx", EngineApi.OPENAI, "vllm-mlx", List.of("vllm-mlx", "vllm_mlx"), true),
    /** Another OpenAI-compatible server. */
    OPENAI("openai", EngineApi.OPENAI, "openai", List.of(), false);

    private final String kind;
    private final EngineApi api;
    private final String engineName;
    private final List<String> processNames;
    private final boolean servesOneModel;

    EngineFlavor(String kind, EngineApi api, String engineName, List<String> processNames, boolean servesOneModel) {
        this.kind = kind;
        this.api = api;
        this.engineName = engineName;
        this.processNames = List.copyOf(processNames);
        this.servesOneModel = servesOneModel;
    }

    /** The name in detect's table and JSON (the {@code kind}). */
    public String kind() {
        return kind;
    }

    public EngineApi api() {
        return api;
    }

    /** The engine name a discovered engine of this flavour gets (with -PORT when a second one is found). */
    public String engineName() {
        return engineName;
    }

    /** Executables (or python modules) that identify its processes when none is found by the port. */
    public List<String> processNames() {
        return processNames;
    }

    /** True when the server serves the one model it was started with (so its model list names it). */
    public boolean servesOneModel() {
        return servesOneModel;
    }

    @Override
    public String toString() {
        return kind;
    }

    public static Optional<EngineFlavor> find(String kind) {
        for (EngineFlavor f : values()) {
            if (f.kind.equals(kind)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }
}
