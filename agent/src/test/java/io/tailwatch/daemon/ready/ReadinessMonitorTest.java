package io.tailwatch.daemon.ready;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.daemon.ready.ReadinessInput.EngineState;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ReadinessMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The monitor's bookkeeping: watched engines only, series per verdict, the read-only token and its paths. */
class ReadinessMonitorTest {

    @Test
    void answersOnlyForWatchedEnginesAndForgetsDroppedOnes() {
        List<String> watched = new ArrayList<>(List.of("a", "b"));
        ReadinessMonitor m = new ReadinessMonitor(() -> List.copyOf(watched), name -> name.equals("a")
                ? ReadinessTest.calm() : ReadinessInput.of(ReadinessTest.T0, EngineState.LOADING, 0.5).withHost(0.0, 0.0, null, null, null));
        assertThat(m.verdict("nope")).isNull();
        assertThat(m.verdict(null)).isNull();
        assertThat(m.verdicts()).containsOnlyKeys("a", "b");
        watched.remove("b");
        assertThat(m.verdicts()).containsOnlyKeys("a");
        assertThat(m.verdict("b")).isNull();
    }

    @Test
    void seriesCarryTheFirstReasonEachReasonAndTheHeadroomWhenKnown() {
        ReadinessMonitor m = new ReadinessMonitor(() -> List.of("a", "b"), name -> name.equals("a") ? ReadinessTest.calm()
                : ReadinessTest.calm().withQueue(null, null, null, 2.0, 3.0).withHost(2.0, 0.0, null, null, null));
        List<Point> points = m.points();
        assertThat(points).filteredOn(p -> p.metric() == ReadinessMetrics.READY)
                .extracting(p -> p.attributes().get(AttrKeys.ENGINE) + "=" + p.value() + "/" + p.attributes().get(AttrKeys.READY_REASON))
                .containsExactly("a=1.0/none", "b=0.0/queue_full");
        assertThat(points).filteredOn(p -> p.metric() == ReadinessMetrics.REASONS)
                .extracting(p -> p.attributes().get(AttrKeys.ENGINE) + "/" + p.attributes().get(AttrKeys.READY_REASON))
                .containsExactly("b/queue_full", "b/memory_pressure");
        // a: one free slot; b: not ready, so none.
        assertThat(points).filteredOn(p -> p.metric() == ReadinessMetrics.HEADROOM)
                .extracting(p -> p.attributes().get(AttrKeys.ENGINE) + "=" + p.value()).containsExactly("a=1.0", "b=0.0");
        // Ready with no slot count known: no headroom series (unknown is absent, not 0).
        ReadinessMonitor unknownSlots = new ReadinessMonitor(() -> List.of("c"),
                name -> ReadinessTest.calm().withQueue(null, null, null, 1.0, 0.0));
        assertThat(unknownSlots.points()).noneMatch(p -> p.metric() == ReadinessMetrics.HEADROOM)
                .anyMatch(p -> p.metric() == ReadinessMetrics.READY && p.value() == 1);
    }

    @Test
    void statusEntriesGetTheirVerdict() {
        ReadinessMonitor m = new ReadinessMonitor(() -> List.of("a"), name -> ReadinessTest.calm());
        Object out = m.addTo(List.of(Map.of("name", "a"), Map.of("name", "gone")));
        assertThat(out).asList().first().asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .extractingByKey("ready").asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("verdict", "ready");
        assertThat(out).asList().element(1).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).doesNotContainKey("ready");
        assertThat(m.addTo("not a list")).isEqualTo("not a list");
    }

    @Test
    void readOnlyTokenPathsAndFile(@TempDir Path dir) throws Exception {
        assertThat(ReadinessMonitor.readyPath("/api/v1/engines/llm/ready")).isTrue();
        assertThat(ReadinessMonitor.readyPath("/api/v1/engines/llm/restart")).isFalse();
        assertThat(ReadinessMonitor.readyPath("/api/v1/engines/a/b/ready")).isFalse();
        assertThat(ReadinessMonitor.readyPath("/api/v1/status")).isFalse();
        assertThat(ReadinessMonitor.readOnlyToken(Map.of())).isNull();
        Path f = Files.writeString(dir.resolve("t"), "  tok-1\n");
        assertThat(ReadinessMonitor.readOnlyToken(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE, f.toString()))).isEqualTo("tok-1");
        Path empty = Files.writeString(dir.resolve("e"), "\n");
        assertThatThrownBy(() -> ReadinessMonitor.readOnlyToken(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE, empty.toString())))
                .hasMessageContaining("the token file is empty");
        assertThatThrownBy(() -> ReadinessMonitor.readOnlyToken(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE, "")))
                .hasMessageContaining("the variable is empty");
        assertThatThrownBy(() -> ReadinessMonitor.readOnlyToken(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE,
                dir.resolve("missing").toString()))).hasMessageContaining("cannot read the token file");
    }
}
