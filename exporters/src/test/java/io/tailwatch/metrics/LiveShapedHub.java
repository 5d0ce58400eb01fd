package io.tailwatch.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fills a hub the way a daemon probing {@code engines} engines (two scenarios each) does: per engine the
 * health and inventory gauges, per scenario the probe gauges, the rolling-window percentiles and the four
 * GenAI client histograms with their full attribute sets, plus a counter, a series without its optional
 * attribute, and label values that need escaping. Deterministic: the same hub renders the same bytes.
 */
final class LiveShapedHub {
    private LiveShapedHub() {
    }

    static final String[] SCENARIOS = {"interactive", "batch"};

    static void fill(MetricHub hub, int engines) {
        List<Point> points = new ArrayList<>();
        for (int e = 0; e < engines; e++) {
            String engine = String.format("engine-%02d", e);
            String model = "llama3.2:3b";
            points.add(Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.REACHED, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.MODELS_LOADED, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, engine, AttrKeys.ENGINE_API, "ollama",
                    AttrKeys.ENGINE_VERSION, "0.6.2 \"rc\" C:\\ollama\nnext"));
            points.add(Point.of(EngineMetrics.MODEL_CONTEXT, 4096, AttrKeys.ENGINE, engine, AttrKeys.MODEL, model));
            points.add(Point.of(ProbeMetrics.PROBES_SKIPPED, 3, AttrKeys.ENGINE, engine, AttrKeys.SKIP_REASON, "in_flight"));
            for (String scenario : SCENARIOS) {
                points.add(Point.of(ProbeMetrics.PROBE_SUCCESS, 1, AttrKeys.ENGINE, engine, AttrKeys.SCENARIO, scenario));
                points.add(Point.of(ProbeMetrics.DECODE_RATE, 87.5, AttrKeys.ENGINE, engine, AttrKeys.SCENARIO, scenario));
                for (String p : new String[] {"p50", "p95", "p99"}) {
                    points.add(Point.of(ProbeMetrics.WINDOW_E2E, 0.42, AttrKeys.ENGINE, engine, AttrKeys.MODEL, model,
                            AttrKeys.SCENARIO, scenario, AttrKeys.PERCENTILE, p));
                    points.add(Point.of(ProbeMetrics.WINDOW_TTFT, 0.21, AttrKeys.ENGINE, engine, AttrKeys.MODEL, model,
                            AttrKeys.SCENARIO, scenario, AttrKeys.PERCENTILE, p));
                }
                points.add(Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, 0, AttrKeys.ENGINE, engine, AttrKeys.MODEL, model,
                        AttrKeys.SCENARIO, scenario));
                points.add(Point.of(ProbeMetrics.WINDOW_SAMPLES, 20, AttrKeys.ENGINE, engine, AttrKeys.MODEL, model,
                        AttrKeys.SCENARIO, scenario));
                Map<String, String> probe = new HashMap<>(Map.of(AttrKeys.ENGINE, engine, AttrKeys.SCENARIO, scenario,
                        "gen_ai.operation.name", "chat", "gen_ai.provider.name", "ollama", AttrKeys.MODEL, model,
                        "server.address", "127.0.0.1", "server.port", String.valueOf(11434 + e)));
                if (scenario.equals("interactive")) {
                    probe.put(AttrKeys.RESPONSE_MODEL, model); // the batch scenario's engine names none
                }
                for (int i = 0; i < 20; i++) {
                    hub.record(ProbeMetrics.OPERATION_DURATION, probe, 0.25 + i * 0.0625);
                    hub.record(ProbeMetrics.TIME_TO_FIRST_CHUNK, probe, 0.125 + i * 0.03125);
                    hub.record(ProbeMetrics.TIME_PER_OUTPUT_CHUNK, probe, 0.0078125);
                    for (String type : new String[] {"input", "output"}) {
                        Map<String, String> tokens = new HashMap<>(probe);
                        tokens.put("gen_ai.token.type", type);
                        tokens.put(AttrKeys.TOKEN_SOURCE, "usage");
                        hub.record(ProbeMetrics.TOKEN_USAGE, tokens, type.equals("input") ? 24 : 16);
                    }
                }
            }
        }
        hub.publish("engines", points);
    }
}
