package io.tailwatch.metrics;

import java.io.OutputStream;
import java.util.Map;

/**
 * Run in a JVM of its own with the daemon's flags and {@code -Xlog:gc}: holds a ballast for the rest of
 * the agent's live set, fills a hub like a daemon with {@code engines} engines, renders it until the JIT
 * has settled, marks the log with an explicit collection, then renders both formats {@code scrapes} times
 * each (streamed to a sink that keeps nothing, as a socket that reads would). Prints the bytes of one
 * text rendering; what the scrapes cost the collector is read from the log by the caller.
 */
public final class ScrapeGcRun {
    private ScrapeGcRun() {
    }

    public static void main(String[] args) throws Exception {
        int engines = Integer.parseInt(args[0]);
        int scrapes = Integer.parseInt(args[1]);
        int ballastMiB = Integer.parseInt(args[2]);
        byte[][] ballast = new byte[ballastMiB][];
        for (int i = 0; i < ballastMiB; i++) {
            ballast[i] = new byte[1 << 20];
        }
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"), true);
        LiveShapedHub.fill(hub, engines);
        long[] bytes = new long[1];
        OutputStream sink = new OutputStream() {
            @Override
            public void write(int b) {
                bytes[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                bytes[0] += len;
            }
        };
        for (int i = 0; i < 30; i++) {
            prom.scrape(null, sink);
            prom.scrape("application/openmetrics-text", sink);
        }
        System.gc(); // the mark: what follows in the log is the scrapes'
        bytes[0] = 0;
        for (int i = 0; i < scrapes; i++) {
            prom.scrape(null, sink);
            prom.scrape("application/openmetrics-text", sink);
        }
        System.out.println("bytes=" + bytes[0] / (2L * scrapes) + " dropped=" + hub.droppedSeries() + " ballast=" + ballast.length);
    }
}
