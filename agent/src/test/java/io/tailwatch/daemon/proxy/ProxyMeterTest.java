package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.PrometheusExporter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyMeterTest {
    private static final String GAUGE = "tailwatch_proxy_in_flight{tailwatch_engine_name=\"mlx\"} ";

    private static String scrape(PrometheusExporter prometheus) {
        return prometheus.scrape("text/plain");
    }

    @Test
    void aScrapeSeesTheRequestsInFlightAtThatScrapeAndAStoppedProxyIsNoLongerAsked() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prometheus = new PrometheusExporter(hub, Map.of(), false);
        ProxyMeter meter = new ProxyMeter("mlx", hub);
        meter.open();
        meter.begin(System.nanoTime(), Lanes.DEFAULT, true);
        meter.begin(System.nanoTime(), Lanes.DEFAULT, true);
        // Nothing was published by the requests themselves: the scrape asked the meter.
        assertThat(scrape(prometheus)).contains(GAUGE + "2");

        MetricHub next = new MetricHub();
        meter.rebind(next);
        next.refresh();
        assertThat(next.snapshot().value(io.tailwatch.metrics.ProxyMetrics.IN_FLIGHT,
                io.tailwatch.metrics.AttrKeys.ENGINE, "mlx")).isEqualTo(2.0);
        // Closed: its series leave the output, and neither a read nor a request ending brings them back.
        meter.close();
        assertThat(next.snapshot().value(io.tailwatch.metrics.ProxyMetrics.IN_FLIGHT,
                io.tailwatch.metrics.AttrKeys.ENGINE, "mlx")).isNull();
        meter.publish();
        next.refresh();
        assertThat(next.snapshot().value(io.tailwatch.metrics.ProxyMetrics.IN_FLIGHT,
                io.tailwatch.metrics.AttrKeys.ENGINE, "mlx")).isNull();
    }

    /** 25 refused requests (401) are counted as rejected, but none enters the lane's window or its goodput. */
    @Test
    void refusedRequestsAreCountedButNeverMetered() {
        MetricHub hub = new MetricHub();
        ProxyMeter meter = new ProxyMeter("mlx", hub);
        for (int i = 0; i < 25; i++) {
            meter.begin(System.nanoTime(), Lanes.DEFAULT, true).finish(System.nanoTime(),
                    io.tailwatch.metrics.AttrValues.ProxyOutcome.REJECTED, null);
        }
        assertThat(meter.windowViews(System.nanoTime())).isEmpty();
        assertThat(meter.status().get("requests")).isEqualTo(25L);
        meter.begin(System.nanoTime(), Lanes.DEFAULT, true).finish(System.nanoTime(),
                io.tailwatch.metrics.AttrValues.ProxyOutcome.OK, null);
        assertThat(meter.windowViews(System.nanoTime()).get(Lanes.DEFAULT).requests()).isEqualTo(1);
    }

    @Test
    void aProxyThatCannotListenLeavesNoSeriesBehind() throws Exception {
        MetricHub hub = new MetricHub();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            io.tailwatch.core.config.Config c = io.tailwatch.core.config.Config.parse("engines:\n  - name: mlx\n"
                    + "    api: openai\n    url: http://127.0.0.1:9\n    proxy:\n      listen: 127.0.0.1:"
                    + taken.getLocalPort() + "\n", "test", Map.of());
            EngineProxies proxies = new EngineProxies(hub, null).start(c.engines());
            try {
                assertThat(proxies.proxy("mlx")).isNull();
                hub.refresh();
                assertThat(hub.snapshot().value(io.tailwatch.metrics.ProxyMetrics.IN_FLIGHT,
                        io.tailwatch.metrics.AttrKeys.ENGINE, "mlx")).isNull();
            } finally {
                proxies.close();
            }
        }
    }
}
