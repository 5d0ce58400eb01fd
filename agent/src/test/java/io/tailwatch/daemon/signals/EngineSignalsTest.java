package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineSignalsTest {

    @Test
    void unknownNaNInfiniteOrNegativeFiguresHaveNoSeries() {
        EngineSignals s = new EngineSignals(Double.NaN, -1.0, Double.POSITIVE_INFINITY, null, null, Map.of());
        assertThat(s.isEmpty()).isTrue();
        assertThat(s.points("e")).isEmpty();
        EngineSignals zero = new EngineSignals(0.0, 0.0, 0.0, 0.0, "measured", null);
        assertThat(zero.points("e")).as("a reported 0 is a figure").hasSize(4);
    }

    @Test
    void theFirstSourceWinsAndLaterOnesFillTheGaps() {
        EngineSignals metrics = new EngineSignals(2.0, 5.0, null, null, null, Map.of("families", List.of("llamacpp")));
        EngineSignals slots = new EngineSignals(3.0, null, null, null, null, Map.of("slots_total", 4));
        EngineSignals merged = EngineSignals.EMPTY.orElse(metrics).orElse(slots);
        assertThat(merged.running()).isEqualTo(2.0);
        assertThat(merged.waiting()).isEqualTo(5.0);
        assertThat(merged.details()).containsKeys("families", "slots_total");
        List<Point> points = merged.points("llama");
        assertThat(points).extracting(p -> p.attributes().get(AttrKeys.REQUEST_STATE)).containsExactly("running", "waiting");
        new MetricHub().publish("signals/llama", points); // the attributes match the declarations
    }

    @Test
    void theQueueWaitCarriesItsSource() {
        EngineSignals est = new EngineSignals(null, null, null, 0.4, "estimate", null);
        assertThat(est.points("e")).singleElement().satisfies(p -> {
            assertThat(p.metric()).isEqualTo(EngineSideMetrics.QUEUE_WAIT);
            assertThat(p.attributes()).containsEntry(AttrKeys.QUEUE_WAIT_SOURCE, "estimate");
        });
        assertThatThrownBy(() -> new EngineSignals(null, null, null, 0.4, "guess", null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
