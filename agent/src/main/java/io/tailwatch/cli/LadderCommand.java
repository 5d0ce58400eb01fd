package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.tools.capacity.BaselineHandover;
import io.tailwatch.core.probe.EngineFacts;
import io.tailwatch.tools.capacity.Gate;
import io.tailwatch.tools.capacity.HealthCheck;
import io.tailwatch.tools.capacity.HostFigures;
import io.tailwatch.tools.capacity.Ladder;
import io.tailwatch.tools.capacity.LadderOptions;
import io.tailwatch.tools.capacity.LadderReport;
import io.tailwatch.tools.capacity.LadderResult;
import io.tailwatch.tools.capacity.LevelResult;
import io.tailwatch.tools.capacity.Preflight;
import io.tailwatch.tools.capacity.RunMetadata;
import io.tailwatch.tools.capacity.StopRules;
import io.tailwatch.tools.history.RunRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** tailwatch ladder: the concurrency ladder with stop rules, a gate report and a chart. */
@Command(name = "ladder", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = {
        "Concurrency ladder with stop rules and a gate report.",
        "A warm-up, then N requests at exactly each concurrency level, stopping when a rule trips",
        "(errors, p95 >= 3x the first step, health, swap growth, memory pressure).",
        "Writes requests.csv, summary.json, report.md and ladder.png to --out.",
        "Exit: 0 done, 1 gate failed or engine unusable, 2 usage/config, 3 refused by the preflight gate, 130 interrupted."})
public final class LadderCommand extends PrintingCommand {

    @Mixin
    ConfigOptions config;

    @Option(names = "--engine", paramLabel = "NAME", description = "Engine from the config.")
    String engine;

    @Mixin
    EngineUrlOptions adHoc;

    @Option(names = "--model", paramLabel = "M", description = "Model (default: the engine's configured or first loaded model).")
    String model;

    @Option(names = "--levels", paramLabel = "1,2,4,8", defaultValue = "1,2,4,8", description = "Concurrency levels, increasing (default: ${DEFAULT-VALUE}).")
    String levels;

    @Option(names = "--requests-per-level", paramLabel = "N", description = "Requests per level (default: max(5, 3 x level)).")
    Integer requestsPerLevel;

    @Option(names = "--prompt-tokens", paramLabel = "N", defaultValue = "500", description = "Prompt size in tokens (default: ${DEFAULT-VALUE}).")
    int promptTokens;

    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "120", description = "Output tokens per request (default: ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--max-duration", paramLabel = "DURATION", defaultValue = "15m", description = "Cap on the whole run (default: ${DEFAULT-VALUE}).")
    String maxDuration;

    @Option(names = "--max-requests", paramLabel = "N", defaultValue = "500", description = "Cap on all requests, warm-up included (default: ${DEFAULT-VALUE}).")
    int maxRequests;

    @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "5m", description = "Deadline of one request (default: ${DEFAULT-VALUE}).")
    String requestTimeout;

    @Option(names = "--first-token-timeout", paramLabel = "DURATION", defaultValue = "2m", description = "Deadline for the first token (default: ${DEFAULT-VALUE}).")
    String firstTokenTimeout;

    @Option(names = "--p95-ratio", paramLabel = "X", defaultValue = "3", description = "Stop when p95 >= X times the first step's p95 (default: ${DEFAULT-VALUE}).")
    double p95Ratio;

    @Option(names = "--max-swap-growth", paramLabel = "SIZE", defaultValue = "1GiB", description = "Stop when swap grows more than this during a step (default: ${DEFAULT-VALUE}).")
    String maxSwapGrowth;

    @Option(names = "--gate", paramLabel = "daily=N,budget=DURATION", description = "Can N jobs a day finish within the budget at concurrency 1?")
    String gate;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ./tailwatch-ladder-<UTC time>).")
    Path out;

    @Option(names = "--force", description = "Run even when the preflight gate refuses.")
    boolean force;

    @Option(names = "--continue", description = "Keep climbing after a stop rule trips (every trip is still reported).")
    boolean continueAfterStop;

    @Option(names = "--quiet", description = "No progress on stderr (a bar on a terminal, plain lines otherwise).")
    boolean quiet;

    @Option(names = "--history-db", paramLabel = "FILE", description = "History database (default: the user data directory).")
    Path historyDb;

    @Option(names = "--no-history", description = "Keep nothing in the local history (the alert baseline is saved only with --save-baseline).")
    boolean noHistory;

    @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "interactive",
            description = "Probe scenario whose alert baseline the concurrency-1 p95 becomes with --save-baseline (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--save-baseline", description = "Store the clean concurrency-1 p95 as the alert baseline of --engine's "
            + "--scenario (a configured engine only, and only when --prompt-tokens and --max-tokens match that scenario's).")
    boolean saveBaseline;

    @Override
    protected int run(PrintWriter stdout, PrintWriter err) {
        Config cfg = config.loadOrReport();
        if (cfg == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        EngineTarget target;
        LadderOptions options;
        Gate parsedGate;
        try {
            target = adHoc.resolve(cfg, engine);
            parsedGate = gate == null ? null : Gate.parse(gate);
            Duration total = CapacitySupport.duration("--max-duration", maxDuration);
            options = new LadderOptions(model, CapacitySupport.parseLevels(levels), requestsPerLevel, promptTokens,
                    maxTokens, 0.0, total, maxRequests, continueAfterStop,
                    new StopRules(p95Ratio, 0.0, CapacitySupport.size("--max-swap-growth", maxSwapGrowth)),
                    CapacitySupport.duration("--first-token-timeout", firstTokenTimeout),
                    CapacitySupport.duration("--request-timeout", requestTimeout));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        Path dir = out != null ? out : Path.of("tailwatch-ladder-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC).format(Instant.now()));

        try (HostReader host = new HostReader(cfg, target);
             EngineClient client = EngineClients.create(target.api(), target.url(), target.apiKey(),
                     target.connectTimeout())) {
            HostFigures pre = host.read();
            List<String> refusals = Preflight.refusals(pre, HostSources.isMac());
            if (!refusals.isEmpty()) {
                if (!force) {
                    err.println("refusing to load the engine: " + String.join("; ", refusals)
                            + " (wait for the host to recover, or pass --force)");
                    return CapacitySupport.EXIT_REFUSED;
                }
                err.println("warning: running despite: " + String.join("; ", refusals) + " (--force)");
            }
            Duration ask = Duration.ofSeconds(5);
            String m = model != null ? model : target.model() != null ? target.model() : client.defaultModel(ask);
            LadderOptions o = options.withModel(m);
            EngineFacts facts = EngineFacts.ask(client, m, ask);
            // What the report calls the model: a run that names none (mlx_lm) is served by the server's --model
            String reported = CapacitySupport.reportedModel(target, m);
            String recorded = io.tailwatch.core.probe.EngineClient.recordedModel(m, reported);
            RunMetadata asked = CapacitySupport.metadata(target, reported, facts, pre, o.parameters(force && !refusals.isEmpty()),
                    promptTokens);
            // mlx_lm tells its version only in its answers (system_fingerprint): the client has it after the first one.
            // A run that names no model and has none from the command line takes a name the answers give (not the
            // placeholder mlx_lm echoes).
            java.util.concurrent.atomic.AtomicReference<String> served = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.function.UnaryOperator<RunMetadata> learned = x -> (x.engineVersion() != null ? x
                    : x.withEngineVersion(client.health(ask).version())).withServedModel(served.get());

            Ladder ladder = new Ladder(client, host::read, HealthCheck.of(client, ask), o, Clock.systemUTC());
            io.tailwatch.tools.capacity.LadderChart.warmUp();
            CountDownLatch written = new CountDownLatch(1);
            Thread hook = CapacitySupport.onInterrupt("tailwatch-ladder-interrupt", ladder::cancel, written);
            Progress progress = Progress.forStderr(quiet, err);
            progress.line(String.format(Locale.ROOT, "ladder on %s (%s) model %s, levels %s; writing to %s", target.name(),
                    io.tailwatch.core.logging.Redact.url(target.url()), recorded == null ? "(engine default)" : recorded, o.levels(),
                    dir.toAbsolutePath()));
            LadderResult result;
            try {
                result = ladder.run(pre, new Ladder.Listener() {
                    private final List<Double> latencies = new ArrayList<>();
                    private int done;
                    private int errors;

                    @Override
                    public void warmup(ProbeResult r) {
                        if (r.responseModel() != null) {
                            served.compareAndSet(null, r.responseModel());
                        }
                        progress.line(String.format(Locale.ROOT, "warm-up: %s", r.success()
                                ? String.format(Locale.ROOT, "%.2f s", r.e2eSeconds()) : "failed (" + r.errorType() + ")"));
                    }

                    @Override
                    public void level(int concurrency, int planned) {
                        synchronized (latencies) {
                            latencies.clear();
                            done = 0;
                            errors = 0;
                        }
                        progress.begin("level " + concurrency, planned);
                    }

                    @Override
                    public void request(int concurrency, ProbeResult r) {
                        if (r.responseModel() != null) {
                            served.compareAndSet(null, r.responseModel());
                        }
                        String figures;
                        int n;
                        synchronized (latencies) {
                            n = ++done;
                            if (r.success()) {
                                latencies.add(r.e2eSeconds());
                            } else {
                                errors++;
                            }
                            double p95 = io.tailwatch.core.stats.Stats.percentile(
                                    io.tailwatch.core.stats.Stats.toArray(latencies), 95);
                            figures = String.format(Locale.ROOT, "p95 %s s, %d error%s", f(p95), errors,
                                    errors == 1 ? "" : "s");
                        }
                        progress.update(n, figures);
                    }

                    @Override
                    public void step(LadderResult snapshot) {
                        LevelResult l = snapshot.levels().get(snapshot.levels().size() - 1);
                        progress.line(stepLine(l));
                        write(dir, snapshot, learned.apply(asked).withTimes(snapshot.start(), snapshot.end()), parsedGate, err);
                    }
                });
                progress.close();
                write(dir, result, learned.apply(asked).withTimes(result.start(), result.end()), parsedGate, err);
                if (result.interrupted()) {
                    // said before the shutdown hook is released: after that the JVM may halt at any point
                    err.println("interrupted; partial report in " + dir.toAbsolutePath());
                    return CapacitySupport.EXIT_INTERRUPTED;
                }
            } finally {
                progress.close();
                written.countDown();
            }
            CapacitySupport.dropInterruptHook(hook);
            Gate.Verdict verdict = LadderReport.gate(parsedGate, result);
            printSummary(stdout, result, verdict, dir);
            if (!noHistory) {
                CapacitySupport.saveHistory(CapacitySupport.historyPath(historyDb), RunRecords.ladder(
                        io.tailwatch.core.host.platform.ResourceInfo.hostName(), target.name(), recorded, result,
                        LadderReport.readSummary(dir)), err);
            }
            if (saveBaseline) {
                handBaseline(err, cfg, target, reported, result);
            }
            if (result.neverAnswered()) {
                err.println("the engine did not answer successfully: " + result.warmup().errorType()
                        + (result.warmup().errorMessage() == null ? "" : " (" + result.warmup().errorMessage() + ")"));
                return TailwatchCommand.EXIT_FAILURE;
            }
            if (verdict != null && !verdict.pass()) {
                return TailwatchCommand.EXIT_FAILURE;
            }
            return TailwatchCommand.EXIT_OK;
        }
    }

    /**
     * With --save-baseline: gives the clean concurrency-1 step's p95 to the alert rules' baseline store
     * (the daemon picks the file up), for this engine, model and --scenario, and says what it replaced;
     * or says why not ({@link BaselineHandover#refusal}).
     */
    private void handBaseline(PrintWriter err, Config cfg, EngineTarget target, String m, LadderResult r) {
        String why = baselineRefusal(cfg, target, m, r);
        if (why != null) {
            err.println("baseline not saved: " + why);
            return;
        }
        LevelResult l = r.baselineStep();
        io.tailwatch.daemon.alerts.BaselineStore store = io.tailwatch.daemon.alerts.BaselineStore.open(cfg.alerts().baselineFile());
        io.tailwatch.daemon.alerts.BaselineStore.Entry old = store.get(target.name(), m, scenario);
        store.put(target.name(), m, scenario, l.e2e().p95());
        err.printf(Locale.ROOT, "baseline p95 %.2f s saved for %s / %s / %s in %s%s%n", l.e2e().p95(), target.name(), m,
                scenario, store.file(), old == null ? " (there was none)" : String.format(Locale.ROOT,
                        "; it replaces %.2f s (%s, %s)", old.p95Seconds(), old.source(), old.measuredAt()));
    }

    /** Why the ladder's level-1 p95 must not become the baseline; null when it may. */
    String baselineRefusal(Config cfg, EngineTarget target, String m, LadderResult r) {
        return BaselineHandover.refusal(target.configured() ? cfg.engine(target.name()) : null, m, scenario,
                promptTokens, maxTokens, r);
    }

    private static void write(Path dir, LadderResult r, RunMetadata meta, Gate gate, PrintWriter err) {
        try {
            LadderReport.write(dir, r, meta, gate);
        } catch (IOException | RuntimeException e) {
            err.println("cannot write the report to " + dir + ": " + e.getMessage());
        }
    }

    static String stepLine(LevelResult l) {
        return String.format(Locale.ROOT, "concurrency %d: %d/%d requests, %d error%s, p50 %s s, p95 %s s, p99 %s s, "
                        + "TTFT p95 %s s, %s output tok/s", l.concurrency(), l.requests(), l.planned(), l.errors(),
                l.errors() == 1 ? "" : "s",
                f(l.e2e().p50()), f(l.e2e().p95()), f(l.e2e().p99()), f(l.ttft().p95()), f1(l.outputTokensPerSecond()));
    }

    private static void printSummary(PrintWriter out, LadderResult r, Gate.Verdict verdict, Path dir) {
        out.println("concurrency  requests  errors  p50 s   p95 s   p99 s   TTFT p95 s  output tok/s");
        for (LevelResult l : r.levels()) {
            out.printf(Locale.ROOT, "%11d  %8d  %6d  %6s  %6s  %6s  %10s  %12s%n", l.concurrency(), l.requests(),
                    l.errors(), f(l.e2e().p50()), f(l.e2e().p95()), f(l.e2e().p99()), f(l.ttft().p95()),
                    f1(l.outputTokensPerSecond()));
        }
        if (r.stop() != null) {
            StopRules.Stop s = r.stop();
            out.printf(Locale.ROOT, "stopped at concurrency %d by %s: %s%n", s.level(), s.rule(), s.detail());
        } else {
            out.println("no stop rule tripped");
        }
        if (verdict != null) {
            out.println("gate: " + verdict.sentence());
        }
        out.println("report: " + dir.resolve(LadderReport.REPORT).toAbsolutePath());
    }

    static String f(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String f1(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }
}
