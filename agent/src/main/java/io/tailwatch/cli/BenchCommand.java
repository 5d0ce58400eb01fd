package io.tailwatch.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.platform.ResourceInfo;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.stats.Stats;
import io.tailwatch.tools.capacity.Bench;
import io.tailwatch.tools.capacity.BenchReport;
import io.tailwatch.core.probe.EngineFacts;
import io.tailwatch.tools.capacity.HostFigures;
import io.tailwatch.tools.capacity.RunMetadata;
import io.tailwatch.tools.history.History;
import io.tailwatch.tools.history.HistoryException;
import io.tailwatch.tools.history.RunRecord;
import io.tailwatch.tools.history.RunRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** tailwatch bench: the benchmark methodology over one or more engines. */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = {
        "Methodical decode benchmark of one or more engines.",
        "Benchmark decode speed methodically: preflight gate, one warm-up per engine, temperature 0, --runs measured",
        "runs; median tok/s with mean, sample stddev (N-1) and CV class; sanity checks; thermal drift; tok/s per watt",
        "where host power is known; Ollama models unloaded between engines; adaptive cool-down; regression check",
        "against the last 7 days of local history.",
        "Exit: 0 done, 1 no valid run for some engine, 2 usage/config, 3 refused by the preflight gate,",
        "130 interrupted (Ctrl-C: the run in flight is dropped; a partial report is printed and written)."})
public final class BenchCommand extends PrintingCommand {

    @Mixin
    ConfigOptions config;

    @Option(names = "--engine", paramLabel = "NAME", description = "Engine from the config (repeat for several).")
    List<String> engines = new ArrayList<>();

    @Mixin
    EngineUrlOptions adHoc;

    @Option(names = "--model", paramLabel = "M", description = "Model (default: each engine's configured or first loaded model).")
    String model;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "3", description = "Measured runs per engine (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--prompt-tokens", paramLabel = "N", defaultValue = "500", description = "Prompt size in tokens (default: ${DEFAULT-VALUE}).")
    int promptTokens;

    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "256", description = "Output tokens per run (default: ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "5m", description = "Deadline of one run (default: ${DEFAULT-VALUE}).")
    String requestTimeout;

    @Option(names = "--cool-down", paramLabel = "DURATION", defaultValue = "5s", description = "Pause between engines after pressure is normal (default: ${DEFAULT-VALUE}).")
    String coolDown;

    @Option(names = "--cool-down-wait", paramLabel = "DURATION", defaultValue = "30s", description = "Longest wait for memory pressure to return to normal (default: ${DEFAULT-VALUE}).")
    String coolDownWait;

    @Option(names = "--force", description = "Run even when the preflight gate refuses.")
    boolean force;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write bench.json and bench.md to DIR.")
    Path out;

    @Option(names = "--quiet", description = "No progress on stderr (a bar on a terminal, plain lines otherwise).")
    boolean quiet;

    @Option(names = "--history-db", paramLabel = "FILE", description = "History database (default: the user data directory).")
    Path historyDb;

    @Option(names = "--no-history", description = "Neither compare with nor store in the local history.")
    boolean noHistory;

    @Override
    protected int run(PrintWriter stdout, PrintWriter err) {
        Config cfg = config.loadOrReport();
        if (cfg == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        List<EngineTarget> targets = new ArrayList<>();
        Bench.Options options;
        try {
            if (!engines.isEmpty() && adHoc.url != null) {
                throw new IllegalArgumentException("give --engine NAME (one or more) or --url URL --api API, not both");
            }
            if (engines.isEmpty()) {
                targets.add(adHoc.resolve(cfg, null));
            } else {
                for (String e : engines) {
                    targets.add(EngineTarget.resolve(cfg, e, null, null, null));
                }
            }
            Duration total = CapacitySupport.duration("--request-timeout", requestTimeout);
            options = new Bench.Options(runs, promptTokens, maxTokens, total, total,
                    CapacitySupport.duration("--cool-down-wait", coolDownWait), CapacitySupport.duration("--cool-down", coolDown),
                    Duration.ofSeconds(1), force);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        EngineTarget engineForFootprint = targets.size() == 1 ? targets.get(0) : null;
        List<EngineClient> clients = new ArrayList<>();
        try (HostReader host = new HostReader(cfg, engineForFootprint)) {
            HostFigures pre = host.read();
            Duration ask = Duration.ofSeconds(5);
            List<Bench.Target> benchTargets = new ArrayList<>();
            List<RunMetadata> metas = new ArrayList<>();
            for (EngineTarget t : targets) {
                EngineClient c = EngineClients.create(t.api(), t.url(), t.apiKey(), t.connectTimeout());
                clients.add(c);
                String m = model != null ? model : t.model() != null ? t.model() : c.defaultModel(ask);
                EngineFacts facts = EngineFacts.ask(c, m, ask);
                String reported = CapacitySupport.reportedModel(t, m);
                metas.add(CapacitySupport.metadata(t, reported, facts, pre, options.parameters(), promptTokens));
                benchTargets.add(new Bench.Target(t.name(), t.api(), c, m,
                        () -> c.unload(m, Duration.ofSeconds(10)),
                        io.tailwatch.core.probe.EngineClient.recordedModel(m, reported)));
            }
            // Ctrl-C: the run in flight is aborted, sleeps end, and what was measured is reported.
            CountDownLatch stop = new CountDownLatch(1);
            Bench bench = new Bench(host::read, options, Clock.systemUTC(), d -> stop.await(d.toMillis(), TimeUnit.MILLISECONDS));
            Progress progress = Progress.forStderr(quiet, err);
            bench.listener(listener(progress));
            CountDownLatch written = new CountDownLatch(1);
            Thread hook = CapacitySupport.onInterrupt("tailwatch-bench-interrupt", () -> {
                bench.cancel();
                stop.countDown();
            }, written);
            try {
                List<Bench.EngineResult> results;
                try {
                    results = bench.run(benchTargets);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CapacitySupport.EXIT_INTERRUPTED;
                } finally {
                    progress.close();
                }
                boolean interrupted = bench.cancelled();
                report(results, metas, interrupted);
                if (interrupted) {
                    err.println("interrupted; partial report" + (out == null ? "" : " in " + out.toAbsolutePath()));
                    return CapacitySupport.EXIT_INTERRUPTED;
                }
                CapacitySupport.dropInterruptHook(hook);
                if (results.stream().allMatch(r -> !r.refused().isEmpty())) {
                    err.println("refused by the preflight gate: " + String.join("; ", results.get(0).refused())
                            + " (wait for the host to recover, or pass --force)");
                    return CapacitySupport.EXIT_REFUSED;
                }
                if (results.stream().anyMatch(r -> r.refused().isEmpty() && r.valid() == 0)) {
                    return TailwatchCommand.EXIT_FAILURE;
                }
                return TailwatchCommand.EXIT_OK;
            } finally {
                written.countDown();
            }
        } finally {
            clients.forEach(EngineClient::close);
        }
    }

    /** Feeds the progress display: per engine the warm-up and each run, with the last decode rate and failures. */
    static Bench.Listener listener(Progress progress) {
        return new Bench.Listener() {
            private int failed;
            private final List<Double> rates = new ArrayList<>();

            @Override
            public void engine(Bench.Target t, int requests) {
                failed = 0;
                rates.clear();
                progress.begin("bench " + t.engine(), requests);
                progress.update(0, "warm-up");
            }

            @Override
            public void request(Bench.Target t, int done, io.tailwatch.core.probe.ProbeResult r, Bench.Run run) {
                if (run == null) {
                    progress.update(done, r.success() ? "warm-up done" : "warm-up failed: " + r.errorType());
                    return;
                }
                Double rate = Bench.decodeRate(r);
                if (run.discarded()) {
                    failed++;
                } else if (rate != null) {
                    rates.add(rate);
                }
                String figures = String.format(java.util.Locale.ROOT, "run %d: %s, median %s tok/s, %d failed",
                        run.index(), run.discarded() ? (r.success() ? "discarded" : r.errorType())
                                : String.format(java.util.Locale.ROOT, "%.1f tok/s", rate),
                        rates.isEmpty() ? "n/a" : String.format(java.util.Locale.ROOT, "%.1f",
                                Stats.median(Stats.toArray(rates))), failed);
                progress.update(done, figures);
            }

            @Override
            public void coolDown(Bench.Target next) {
                progress.line("cooling down before " + next.engine() + " ...");
            }
        };
    }

    /**
     * Prints the report (text or JSON), writes it to --out, and keeps the history; an interrupted run
     * is reported as partial, with no regression check and nothing kept in the history.
     */
    private void report(List<Bench.EngineResult> results, List<RunMetadata> metas, boolean interrupted) {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<BenchReport.Regression> regressions = noHistory || interrupted ? null
                : regressions(CapacitySupport.historyPath(historyDb), results, err);
        List<RunMetadata> timed = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            timed.add(metas.get(i).withTimes(results.get(i).start(), results.get(i).end()));
        }
        ObjectNode doc = BenchReport.json(results, timed, regressions);
        String markdown = BenchReport.markdown(results, timed, regressions);
        if (interrupted) {
            doc.put("interrupted", true);
            markdown = markdown.replaceFirst("\\n\\n", "\n\n" + Matcher.quoteReplacement(BenchReport.PARTIAL) + "\n\n");
        }
        if (json) {
            stdout.println(Json.write(doc));
        } else {
            stdout.print((interrupted ? BenchReport.PARTIAL + "\n" : "") + BenchReport.text(results, regressions));
            stdout.flush();
        }
        if (out != null) {
            try {
                BenchReport.write(out, doc, markdown);
            } catch (IOException e) {
                err.println("cannot write to " + out + ": " + e.getMessage());
            }
        }
        if (!noHistory && !interrupted) {
            List<RunRecord> records = RunRecords.bench(ResourceInfo.hostName(), results, doc.get("engines"));
            if (!records.isEmpty()) {
                CapacitySupport.saveHistory(CapacitySupport.historyPath(historyDb), records, err);
            }
        }
    }

    /** The regression check against the local history; null (and a note on {@code err}) when it cannot be read. */
    private static List<BenchReport.Regression> regressions(Path db, List<Bench.EngineResult> results, PrintWriter err) {
        try (History h = History.open(db)) {
            return RunRecords.benchRegressions(h, ResourceInfo.hostName(), results, Instant.now());
        } catch (HistoryException e) {
            err.println("history not read (no regression check): " + e.getMessage());
            return null;
        }
    }
}
