package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ScrapeReplayTest {
    private static final String OM = "application/openmetrics-text";
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private static PrometheusExporter exporter(int engines) {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"), false);
        LiveShapedHub.fill(hub, engines);
        return prom;
    }

    private static String body(ScrapeReplay r, String accept) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        r.writeTo(accept, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void oneRenderingPerFormatServesTheReuseInterval() throws Exception {
        PrometheusExporter prom = exporter(2);
        ScrapeReplay r = new ScrapeReplay(prom, 500_000_000L, 4 << 20, now::get);
        String first = body(r, null);
        assertThat(first).isEqualTo(prom.scrape(null));
        now.addAndGet(400_000_000L);
        assertThat(body(r, "text/plain")).isEqualTo(first);
        assertThat(r.renderings(null)).isEqualTo(1);
        // The other format has a copy of its own.
        assertThat(body(r, OM)).isEqualTo(prom.scrape(OM)).endsWith("# EOF\n");
        assertThat(r.renderings(OM)).isEqualTo(1);
        // Past the interval: rendered again, into the same chunks.
        long held = r.heldBytes();
        now.addAndGet(200_000_000L);
        assertThat(body(r, null)).isEqualTo(first);
        assertThat(r.renderings(null)).isEqualTo(2);
        assertThat(r.heldBytes()).isEqualTo(held);
        assertThat(held).isLessThan(2L * first.length() + 4L * ScrapeReplay.CHUNK_BYTES);
    }

    @Test
    void anExpositionLargerThanTheCopyBoundIsStreamedWholeAndHoldsNoMoreThanTheBound() throws Exception {
        PrometheusExporter prom = exporter(2);
        ScrapeReplay r = new ScrapeReplay(prom, 500_000_000L, 50_000, now::get);
        String whole = prom.scrape(null);
        assertThat(whole.length()).isGreaterThan(50_000);
        assertThat(body(r, null)).isEqualTo(whole);
        assertThat(body(r, null)).isEqualTo(whole);
        assertThat(r.renderings(null)).isEqualTo(2);
        assertThat(r.heldBytes()).isLessThanOrEqualTo(50_000 + ScrapeReplay.CHUNK_BYTES);
    }

    /** A client that does not read holds its own scrape only: the next one is answered meanwhile. */
    @Test
    void aScrapeBlockedOnItsClientDoesNotHoldUpAnother() throws Exception {
        PrometheusExporter prom = exporter(1);
        ScrapeReplay r = new ScrapeReplay(prom, 500_000_000L, 4 << 20, now::get);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> {
            try {
                r.writeTo(null, stuck);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<String> next = CompletableFuture.supplyAsync(() -> {
            try {
                return body(r, null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo(prom.scrape(null));
        release.countDown();
        slow.get(10, TimeUnit.SECONDS);
    }
}
