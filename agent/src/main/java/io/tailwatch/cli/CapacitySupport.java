package io.tailwatch.cli;

import io.tailwatch.core.host.platform.ResourceInfo;
import io.tailwatch.core.units.Units;
import io.tailwatch.core.probe.EngineFacts;
import io.tailwatch.tools.capacity.HostFacts;
import io.tailwatch.tools.capacity.HostFigures;
import io.tailwatch.tools.capacity.RunMetadata;
import io.tailwatch.tools.history.History;
import io.tailwatch.tools.history.HistoryException;
import io.tailwatch.tools.history.RunRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Pieces the ladder and bench commands share: metadata, the prompt hash, parsing, history writes. */
final class CapacitySupport {
    /** Exit code when the preflight gate refuses. */
    static final int EXIT_REFUSED = 3;
    /** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
    static final int EXIT_INTERRUPTED = 130;

    /**
     * Registers the Ctrl-C / SIGTERM hook of a capacity command: it runs {@code cancel}, then holds the
     * JVM open until {@code written} is counted down (the partial report is out) or 20 s have passed.
     * Returns the hook, for removeShutdownHook once the command ends normally.
     */
    static Thread onInterrupt(String name, Runnable cancel, java.util.concurrent.CountDownLatch written) {
        Thread hook = new Thread(() -> {
            cancel.run();
            try {
                written.await(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /** Removes a hook from {@link #onInterrupt}; a JVM already shutting down keeps it. */
    static void dropInterruptHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already
        }
    }

    private CapacitySupport() {
    }

    static RunMetadata metadata(EngineTarget t, String model, EngineFacts facts, HostFigures host,
                                Map<String, Object> parameters, int promptTokens) {
        return new RunMetadata(ResourceInfo.version(), t.name(), t.api(), io.tailwatch.core.logging.Redact.url(t.url()), facts.version(), model,
                facts.modelDigest(), facts.modelFormat(), facts.quantization(), ResourceInfo.hostName(),
                HostFacts.chip(), HostFacts.os(), host.memoryTotalBytes(), HostFigures.thermalName(host.thermalLevel()),
                HostFigures.pressureName(host.pressureLevel()), null, null, parameters, RunMetadata.promptHash(promptTokens),
                facts.parallelism(), facts.parallelismSource());
    }

    /**
     * The model a run's report names: {@code asked}, but for a run whose requests name none
     * ({@link io.tailwatch.core.probe.EngineClient#UNNAMED_MODEL}, as on mlx_lm), the model an mlx_lm server on this
     * host was started with ({@code --model} on the command line of the process listening on the engine's port);
     * null when that cannot be told (a remote engine, another server, no such flag): never the placeholder the
     * answers echo.
     */
    static String reportedModel(EngineTarget t, String asked) {
        if (!io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL.equals(asked)) {
            return asked;
        }
        try {
            return io.tailwatch.core.host.MlxLmServerArgs.servedModel(io.tailwatch.core.host.platform.HostSources
                    .processTable().get(), HostReader.urlEngine(t), ProcessHandle.current().pid());
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    static List<Integer> parseLevels(String text) {
        List<Integer> out = new ArrayList<>();
        for (String p : text.split(",")) {
            try {
                out.add(Integer.parseInt(p.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--levels: '" + p.trim() + "' is not a whole number (use e.g. 1,2,4,8)");
            }
        }
        return out;
    }

    static List<Long> parseCounts(String option, String text) {
        List<Long> out = new ArrayList<>();
        for (String p : text.split(",")) {
            try {
                long v = Long.parseLong(p.trim());
                if (v < 1) {
                    throw new NumberFormatException();
                }
                out.add(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + p.trim() + "' is not a positive whole number");
            }
        }
        return out;
    }

    static Path historyPath(Path option) {
        return option != null ? option : History.defaultPath();
    }

    /**
     * Stores runs in the history in one transaction. A locked or damaged database is reported on
     * {@code err} and the command carries on: the measurement has been printed already.
     */
    static boolean saveHistory(Path file, List<RunRecord> runs, java.io.PrintWriter err) {
        try (History h = History.open(file)) {
            h.record(runs);
            return true;
        } catch (HistoryException e) {
            err.println("history not saved: " + e.getMessage());
            return false;
        }
    }

    static Instant now() {
        return Instant.now();
    }

    /** {@code text} as a duration, or IllegalArgumentException naming {@code option}. */
    static Duration duration(String option, String text) {
        try {
            return Units.duration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }

    /** {@code text} as a size in bytes, or IllegalArgumentException naming {@code option}. */
    static double size(String option, String text) {
        try {
            return Units.bytes(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }
}
