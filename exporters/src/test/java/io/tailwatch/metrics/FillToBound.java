package io.tailwatch.metrics;

import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Run in a JVM of its own with the daemon's flags: holds a ballast for the rest of the agent's live
 * set, fills the hub to its bounds with long label values (histograms of a model that changes at
 * every probe, and gauges), then renders both exposition formats and an OTLP collection repeatedly.
 * Each exposition is streamed into a sink that counts its bytes, as /metrics streams it to the response.
 * Prints the largest exposition and exits 0; running out of heap exits the JVM (ExitOnOutOfMemoryError).
 */
public final class FillToBound {
    private FillToBound() {
    }

    /** {@code name} filled up to the value bound with {@code pad}. */
    private static String wide(String name, String pad) {
        return (name + pad).substring(0, Attrs.MAX_VALUE_CHARS);
    }

    /** Bytes of one exposition in the format {@code accept} asks for, streamed as /metrics streams it. */
    private static long streamed(PrometheusExporter prom, String accept) {
        long[] n = {0};
        try {
            prom.scrape(accept, new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    n[0]++;
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    n[0] += len;
                }
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return n[0];
    }

    public static void main(String[] args) {
        int ballastMiB = Integer.parseInt(args[0]);
        byte[][] ballast = new byte[ballastMiB][];
        for (int i = 0; i < ballastMiB; i++) {
            ballast[i] = new byte[1 << 20];
        }
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "h"));
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        hub.addSink(OtlpExporter.withReader(reader, hub, Map.of()));
        // Engine-controlled values at their bound: 128 characters, each three bytes of UTF-8.
        String pad = "\u20ac".repeat(Attrs.MAX_VALUE_CHARS);
        List<Point> gauges = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            gauges.add(Point.of(EngineMetrics.MODEL_CONTEXT, 4096, AttrKeys.ENGINE, "engine-" + (i % 32),
                    AttrKeys.MODEL, wide("gauge-model" + i, pad)));
        }
        long largest = 0;
        for (int i = 0; i < 20_000; i++) {
            Map<String, String> a = new HashMap<>(CatalogAgreementTest.sampleAttributes(ProbeMetrics.OPERATION_DURATION));
            a.put(AttrKeys.MODEL, wide("rotating-model" + i, pad));
            a.put(AttrKeys.RESPONSE_MODEL, wide("answered-model" + i, pad));
            hub.record(ProbeMetrics.OPERATION_DURATION, a, 0.3);
            if (i % 1000 == 0) {
                hub.publish("engines", gauges);
                largest = Math.max(largest, streamed(prom, null));
                largest = Math.max(largest, streamed(prom, "application/openmetrics-text"));
                reader.collectAllMetrics();
            }
        }
        hub.publish("engines", gauges);
        for (int i = 0; i < 10; i++) {
            largest = Math.max(largest, streamed(prom, null));
            largest = Math.max(largest, streamed(prom, "application/openmetrics-text"));
            reader.collectAllMetrics();
        }
        System.out.println("largest=" + largest + " estimated=" + hub.estimatedExpositionBytes() + " dropped="
                + hub.droppedSeries() + " ballast=" + ballast.length);
    }
}
