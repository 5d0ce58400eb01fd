package io.tailwatch.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class HostSamplingTest {
    static Sampler fixed(String name, List<Point> points) {
        return new Sampler() {
            public String name() {
                return name;
            }

            public List<Point> sample() {
                return points;
            }
        };
    }

    @Test
    void oneFailingOrHangingSamplerLeavesItsSiblingsAlone() {
        CountDownLatch never = new CountDownLatch(1);
        Sampler broken = new Sampler() {
            public String name() {
                return "broken";
            }

            public List<Point> sample() throws Exception {
                throw new java.io.IOException("garbled");
            }
        };
        Sampler hung = new Sampler() {
            public String name() {
                return "hung";
            }

            public List<Point> sample() throws Exception {
                never.await();
                return List.of();
            }
        };
        Sampler memory = fixed("memory", List.of(Point.of(HostMetrics.MEMORY_LIMIT, 1024)));
        MetricHub hub = new MetricHub();
        HostSampling loop = new HostSampling(List.of(broken, hung, memory), Duration.ofSeconds(5),
                Duration.ofMillis(200), hub, Clock.systemUTC());
        HostSnapshot snap = loop.sampleOnce();
        assertThat(snap.memoryTotal()).isEqualTo(1024.0);
        assertThat(snap.results().get("broken").success()).isFalse();
        assertThat(snap.results().get("broken").error()).contains("garbled");
        assertThat(snap.results().get("hung").error()).contains("deadline");
        assertThat(snap.results().get("memory").success()).isTrue();
        assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_SUCCESS, AttrKeys.SAMPLER, "broken")).isEqualTo(0.0);
        assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_SUCCESS, AttrKeys.SAMPLER, "hung")).isEqualTo(0.0);
        assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_SUCCESS, AttrKeys.SAMPLER, "memory")).isEqualTo(1.0);
        // The next cycle works again on a fresh worker thread.
        assertThat(loop.sampleOnce().results().get("memory").success()).isTrue();
        assertThat(List.copyOf(snap.results().keySet())).containsExactly("broken", "hung", "memory");
        loop.close();
    }

    @Test
    void aSignalThatDisappearsIsRemovedNotZeroed() {
        MetricHub hub = new MetricHub();
        hub.publish("host/swap", List.of(Point.of(HostMetrics.PAGING_USAGE, 5, PagingState.USED)));
        assertThat(hub.snapshot().value(HostMetrics.PAGING_USAGE, PagingState.USED)).isEqualTo(5.0);
        hub.publish("host/swap", List.of());
        assertThat(hub.snapshot().value(HostMetrics.PAGING_USAGE, PagingState.USED)).isNull();
    }
}
