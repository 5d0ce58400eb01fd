package io.tailwatch.daemon.signals;

import io.tailwatch.core.host.EngineRunners;
import io.tailwatch.core.host.ProcessTable;
import java.util.List;

/**
 * How many requests a vllm-mlx server generates at once, read from its own command line (vllm-mlx publishes the
 * figure nowhere: neither {@code /v1/status}, {@code /health} nor {@code /metrics} carries it). As its
 * {@code vllm_mlx/cli.py} starts the server ({@code vllm-mlx serve MODEL ...}):
 * <ul>
 * <li>without {@code --continuous-batching} it runs the simple engine, which generates under one lock: one request
 * at a time (others are refused with 503, or wait with {@code VLLM_MLX_SIMPLE_ENGINE_LOCK_ADMISSION=wait});</li>
 * <li>with it, the scheduler admits up to {@code --max-num-seqs} (256 unless given) into its running set, and the
 * batch generator decodes at most {@code --completion-batch-size} (32 unless given) of them at once: the batch size
 * is the smaller of the two (a multimodal model's generator takes the larger of {@code --completion-batch-size}
 * and {@code --prefill-batch-size}, 8 unless given: a completion batch below the prefill batch is unknown);</li>
 * <li>with {@code --models-config} each model of the registry has its own settings: unknown.</li>
 * </ul>
 * Started as {@code python -m vllm_mlx.server} (its own, shorter option list) with {@code --continuous-batching}
 * the defaults differ between text and multimodal models: unknown. A command line cut at
 * {@link ProcessTable#MAX_ARGS} arguments or {@link ProcessTable#MAX_ARG_BYTES} bytes that lacks a flag leaves the
 * figure unknown rather than taking a default the cut-off part may override, and its last argument, which may end
 * early, is not read.
 */
final class VllmMlxServeArgs {
    /** The defaults of {@code vllm-mlx serve} (vllm_mlx/cli.py). */
    static final int DEFAULT_MAX_NUM_SEQS = 256;
    static final int DEFAULT_COMPLETION_BATCH_SIZE = 32;
    static final int DEFAULT_PREFILL_BATCH_SIZE = 8;

    private VllmMlxServeArgs() {
    }

    /** The batch size and how it follows from the arguments. */
    record Batch(int size, String basis) {
    }

    /** The batch size of the server started with {@code args}, or null when they do not tell it. */
    static Batch batch(List<String> args) {
        if (args == null || args.isEmpty()) {
            return null;
        }
        boolean cut = ProcessTable.mayBeCut(args);
        if (ProcessTable.lastArgumentMayBeCut(args)) {
            args = args.subList(0, args.size() - 1); // "--max-num-seqs 25" may have been "256"
        }
        int serve = args.indexOf("serve");
        boolean module = args.contains("vllm_mlx.server");
        if (serve < 0 && !module) {
            return null;
        }
        List<String> opts = serve >= 0 ? args.subList(serve + 1, args.size()) : args;
        if (has(opts, "--models-config")) {
            return null;
        }
        if (!has(opts, "--continuous-batching")) {
            return cut ? null : new Batch(1, "simple engine (no --continuous-batching): one generation at a time");
        }
        if (serve < 0) {
            return null;
        }
        Integer seqs = EngineRunners.flag(opts, "--max-num-seqs");
        Integer completion = EngineRunners.flag(opts, "--completion-batch-size");
        if (cut && (seqs == null || completion == null)) {
            return null;
        }
        int s = seqs == null ? DEFAULT_MAX_NUM_SEQS : seqs;
        int c = completion == null ? DEFAULT_COMPLETION_BATCH_SIZE : completion;
        Integer prefill = EngineRunners.flag(opts, "--prefill-batch-size");
        int p = prefill == null ? DEFAULT_PREFILL_BATCH_SIZE : prefill;
        if (p > c && (prefill != null || !cut) || cut && prefill == null && c < DEFAULT_PREFILL_BATCH_SIZE) {
            // a multimodal model's generator decodes max(completion, prefill) at once, a text model's completion:
            // which one the server loaded is not on the command line
            return null;
        }
        if (s < 1 || c < 1 || s > io.tailwatch.core.config.EngineConfig.Signals.MAX_BATCH_SIZE
                || c > io.tailwatch.core.config.EngineConfig.Signals.MAX_BATCH_SIZE) {
            return null;
        }
        return new Batch(Math.min(s, c), "continuous batching: --max-num-seqs " + s
                + (seqs == null ? " (default)" : "") + ", --completion-batch-size " + c + (completion == null ? " (default)" : ""));
    }

    private static boolean has(List<String> opts, String flag) {
        for (String a : opts) {
            if (a.equals(flag) || a.startsWith(flag + "=")) {
                return true;
            }
        }
        return false;
    }
}
