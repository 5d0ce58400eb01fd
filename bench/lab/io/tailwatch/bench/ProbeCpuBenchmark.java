package io.tailwatch.bench;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * CPU time of one probe and one health check on the calling thread, where the client does all its
 * work (connect, send, read, parse). The simulator runs in this JVM on other threads, so its CPU is
 * not counted. Prints the median and p90 over N measured calls after N/2 warm-up calls.
 * Usage (bench/probe-cpu.sh): [N (100)] [max_tokens (32)]
 */
public final class ProbeCpuBenchmark {
    private ProbeCpuBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int maxTokens = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "calls: %d (after %d warm-up), max_tokens %d, JDK %s%n%n", n, n / 2, maxTokens,
                Runtime.version());
        System.out.println("| API | probe CPU median | p90 | health CPU median | p90 |");
        System.out.println("|---|---|---|---|---|");
        for (String api : new String[] {"openai", "ollama"}) {
            SimulatorOptions o = SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(20), 500);
            try (EngineSimulator sim = EngineSimulator.start(api, "127.0.0.1", 0, o);
                 EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + sim.port()), null)) {
                ProbeRequest req = new ProbeRequest(o.model(), 64, maxTokens, 0.0,
                        Duration.ofSeconds(10), Duration.ofSeconds(30));
                double[] probe = new double[n];
                double[] health = new double[n];
                for (int i = -n / 2; i < n; i++) {
                    long t0 = mx.getCurrentThreadCpuTime();
                    ProbeResult r = c.probe(req);
                    long t1 = mx.getCurrentThreadCpuTime();
                    c.health(Duration.ofSeconds(5));
                    long t2 = mx.getCurrentThreadCpuTime();
                    if (!r.success()) {
                        throw new IllegalStateException("probe failed: " + r.errorType() + " " + r.errorMessage());
                    }
                    if (i >= 0) {
                        probe[i] = (t1 - t0) / 1e6;
                        health[i] = (t2 - t1) / 1e6;
                    }
                }
                System.out.printf(Locale.ROOT, "| %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms |%n", api,
                        pct(probe, 0.5), pct(probe, 0.9), pct(health, 0.5), pct(health, 0.9));
            }
        }
    }

    private static double pct(double[] v, double q) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.floor(q * s.length))];
    }
}
