package io.tailwatch.bench;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.probe.PromptFactory;
import io.tailwatch.core.stats.Stats;
import io.tailwatch.testing.LlamaServer;
import io.tailwatch.testing.RawStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Probe accuracy against a real llama-server (the tiny test model, one thread, loopback): per probe, the
 * decode rate against the server's own {@code timings.predicted_per_second}, the output tokens against
 * {@code max_tokens}, and TTFT and e2e against a raw-socket client sending the same request shape right
 * after. Run with {@code bench/probe-accuracy.sh llama [rounds] [max_tokens]}.
 */
public final class RealEngineAccuracyBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int maxTokens = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        System.out.printf(Locale.ROOT, "rounds: %d, max_tokens %d, prompt_tokens 64, llama-server %s, JDK %s, %d CPUs%n%n",
                rounds, maxTokens, LlamaServer.binary(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        System.out.println("| --parallel | probes | tokens exact | decode error vs timings median | max abs "
                + "| TTFT probe median | TTFT raw median | e2e probe median | e2e raw median |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (String parallel : new String[] {"1", "4"}) {
            try (LlamaServer llama = LlamaServer.start("--parallel", parallel);
                 EngineClient client = EngineClients.create("openai", llama.url(), null)) {
                ProbeRequest req = new ProbeRequest(null, 64, maxTokens, 0, Duration.ofSeconds(20), Duration.ofSeconds(60));
                for (int i = 0; i < 2; i++) {
                    client.probe(req);
                    RawStream.chat(llama.port(), PromptFactory.prompt(64), maxTokens, null);
                }
                List<Double> err = new ArrayList<>();
                List<Double> pt = new ArrayList<>();
                List<Double> rt = new ArrayList<>();
                List<Double> pe = new ArrayList<>();
                List<Double> re = new ArrayList<>();
                int exact = 0;
                for (int i = 0; i < rounds; i++) {
                    ProbeResult r = client.probe(req);
                    if (!r.success()) {
                        throw new IllegalStateException("probe failed: " + r.errorType() + " " + r.errorMessage());
                    }
                    RawStream.Timed raw = RawStream.chat(llama.port(), PromptFactory.prompt(64), maxTokens, null);
                    exact += r.outputTokens() != null && r.outputTokens() == maxTokens ? 1 : 0;
                    err.add(100 * (r.decodeTokensPerSecond() / r.serverDecodeTokensPerSecond() - 1));
                    pt.add(r.ttftSeconds() * 1000);
                    rt.add(raw.ttftSeconds() * 1000);
                    pe.add(r.e2eSeconds() * 1000);
                    re.add(raw.e2eSeconds() * 1000);
                }
                double maxAbs = err.stream().mapToDouble(Math::abs).max().orElse(Double.NaN);
                System.out.printf(Locale.ROOT, "| %s | %d | %d of %d | %+.2f %% | %.2f %% | %.0f ms | %.0f ms | %.0f ms | %.0f ms |%n",
                        parallel, rounds, exact, rounds, median(err), maxAbs, median(pt), median(rt), median(pe), median(re));
            }
        }
    }

    private static double median(List<Double> xs) {
        return Stats.median(xs.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
