package io.tailwatch.bench;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measurement error of the probe client against the simulator's known delays, on loopback.
 * For each API and (TTFT, tokens/s) setting: warm-up probes, then N measured probes; prints the
 * TTFT error (measured - configured, and measured - the simulator's own first-token delay) and
 * the decode-rate error in percent. Run with bench/probe-accuracy.sh.
 */
public final class ProbeAccuracyBenchmark {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int maxTokens = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        System.out.printf(Locale.ROOT, "probes per row: %d, max_tokens %d, prompt_tokens 64, loopback, JDK %s, %d CPUs%n%n",
                n, maxTokens, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        System.out.println("| API | TTFT | tok/s | TTFT error vs server median | p95 | max | decode error vs server median | max (abs) "
                + "| TTFT error vs configured median | decode error vs configured median |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (String api : new String[] {"openai", "ollama"}) {
            for (int ttftMs : new int[] {150, 500}) {
                for (double tps : new double[] {35, 100}) {
                    row(api, ttftMs, tps, n, maxTokens);
                }
            }
        }
    }

    static void row(String api, int ttftMs, double tps, int n, int maxTokens) throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(ttftMs), tps);
        try (EngineSimulator sim = EngineSimulator.start(api, "127.0.0.1", 0, o);
             EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + sim.port()), null)) {
            ProbeRequest req = new ProbeRequest(o.model(), 64, maxTokens, 0, Duration.ofSeconds(10),
                    Duration.ofSeconds(30));
            for (int i = 0; i < 3; i++) {
                c.probe(req); // warm-up: JIT, connection set-up
            }
            List<Double> ttftErr = new ArrayList<>();
            List<Double> decodeErr = new ArrayList<>();
            List<Double> ttftVsConfig = new ArrayList<>();
            List<Double> decodeVsConfig = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long before = System.nanoTime();
                ProbeResult r = c.probe(req);
                if (!r.success()) {
                    throw new IllegalStateException("probe failed: " + r.errorType() + " " + r.errorMessage());
                }
                // Same JVM, same monotonic clock: the simulator's record of when it wrote the first and
                // last token is the truth the probe's figures are compared with.
                // The simulator files its record after writing [DONE]; the client may return first.
                long waitUntil = System.nanoTime() + 2_000_000_000L;
                while (sim.generations().size() < 3 + i + 1 && System.nanoTime() < waitUntil) {
                    Thread.sleep(1);
                }
                var g = sim.generations().get(3 + i);
                double clientFirst = before + r.ttftSeconds() * 1e9;
                ttftErr.add((clientFirst - g.firstTokenAt()) / 1e6);
                if (System.getenv("BENCH_TRACE") != null && (clientFirst - g.firstTokenAt()) > 50e6) {
                    System.err.printf(Locale.ROOT, "outlier: client headers %.1f ms (server %.1f ms after receipt, receipt %.1f ms after send),"
                            + " client ttft %.1f ms, server first token %.1f ms after send%n",
                            r.timeToHeadersSeconds() * 1e3, (g.headersAt() - g.receivedAt()) / 1e6, (g.receivedAt() - before) / 1e6,
                            r.ttftSeconds() * 1e3, (g.firstTokenAt() - before) / 1e6);
                }
                double serverRate = (g.tokens() - 1) / ((g.lastTokenAt() - g.firstTokenAt()) / 1e9);
                decodeErr.add((r.decodeTokensPerSecond() - serverRate) / serverRate * 100);
                ttftVsConfig.add((r.ttftSeconds() - ttftMs / 1000.0) * 1000);
                decodeVsConfig.add((r.decodeTokensPerSecond() - tps) / tps * 100);
            }
            System.out.printf(Locale.ROOT,
                    "| %s | %d ms | %.0f | %+.2f ms | %+.2f ms | %+.2f ms | %+.3f %% | %+.3f %% | %+.2f ms | %+.3f %% |%n",
                    api, ttftMs, tps, median(ttftErr), pct(ttftErr, 95), maxAbs(ttftErr), median(decodeErr),
                    maxAbs(decodeErr), median(ttftVsConfig), median(decodeVsConfig));
        }
    }

    static double median(List<Double> v) {
        return pct(v, 50);
    }

    static double pct(List<Double> v, int p) {
        List<Double> s = new ArrayList<>(v);
        s.sort(Double::compare);
        int rank = (int) ((p * (long) s.size() + 99) / 100);
        return s.get(Math.max(1, rank) - 1);
    }

    static double maxAbs(List<Double> v) {
        double m = 0;
        double signed = 0;
        for (double x : v) {
            if (Math.abs(x) > m) {
                m = Math.abs(x);
                signed = x;
            }
        }
        return signed;
    }
}
