package io.tailwatch.core.rules;

import static io.tailwatch.core.rules.Expr.Matching.ignoring;
import static io.tailwatch.core.rules.Expr.Matching.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.rules.Expr.Op;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExprTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static MetricSnapshot snap(Point... points) {
        return new MetricSnapshot(T0, List.of(points));
    }

    private static Point e2e(String engine, String q, double v) {
        return Point.of(ProbeMetrics.WINDOW_E2E, v, AttrKeys.ENGINE, engine, AttrKeys.MODEL, "m", AttrKeys.SCENARIO, "s", AttrKeys.PERCENTILE, q);
    }

    @Test
    void selectorUsesPrometheusNamesAndLabels() {
        Expr e = Expr.select(HostMetrics.PAGING_USAGE, PagingState.USED);
        assertThat(e.promql()).isEqualTo("system_paging_usage_bytes{system_paging_state=\"used\"}");
        List<Expr.Sample> got = e.eval(snap(Point.of(HostMetrics.PAGING_USAGE, 5, PagingState.USED),
                Point.of(HostMetrics.PAGING_USAGE, 7, PagingState.FREE)), T0);
        assertThat(got).containsExactly(new Expr.Sample(Map.of("system_paging_state", "used"), 5));
    }

    @Test
    void selectorRejectsUndeclaredAttributesAndValues() {
        assertThatThrownBy(() -> Expr.select(HostMetrics.PAGING_USAGE, "state", "used"))
                .hasMessageContaining("no attribute state");
        assertThatThrownBy(() -> Expr.select(HostMetrics.PAGING_USAGE, "system.paging.state", "cached"))
                .hasMessageContaining("never has value cached");
    }

    @Test
    void comparisonFiltersLikePromql() {
        Expr e = Expr.cmp(Expr.select(HostMetrics.PRESSURE_LEVEL), Op.GE, 1);
        assertThat(e.promql()).isEqualTo("tailwatch_memory_pressure_level >= 1");
        assertThat(e.eval(snap(Point.of(HostMetrics.PRESSURE_LEVEL, 0)), T0)).isEmpty();
        assertThat(e.eval(snap(Point.of(HostMetrics.PRESSURE_LEVEL, 1)), T0)).hasSize(1);
        assertThat(e.eval(snap(), T0)).as("absent is not zero: nothing to compare").isEmpty();
    }

    @Test
    void divisionMatchesIgnoringALabelAndDropsIt() {
        Expr e = Expr.div(Expr.select(ProbeMetrics.WINDOW_E2E, AttrKeys.PERCENTILE, "p99"), ignoring(Rules.PERCENTILE),
                Expr.select(ProbeMetrics.WINDOW_E2E, AttrKeys.PERCENTILE, "p95"));
        assertThat(e.promql()).isEqualTo("tailwatch_probe_window_e2e_seconds{tailwatch_percentile=\"p99\"} / ignoring(tailwatch_percentile) "
                + "tailwatch_probe_window_e2e_seconds{tailwatch_percentile=\"p95\"}");
        List<Expr.Sample> got = e.eval(snap(e2e("a", "p99", 10), e2e("a", "p95", 2), e2e("b", "p99", 3)), T0);
        assertThat(got).containsExactly(new Expr.Sample(Map.of(Rules.ENGINE, "a", Rules.MODEL, "m", Rules.SCENARIO, "s"), 5));
    }

    @Test
    void andUnlessOrFollowSetSemantics() {
        Expr up0 = Expr.cmp(Expr.select(EngineMetrics.UP), Op.EQ, 0);
        Expr loading = Expr.cmp(Expr.select(EngineMetrics.LOADING), Op.EQ, 1);
        MetricSnapshot s = snap(Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "a"), Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "b"),
                Point.of(EngineMetrics.LOADING, 1, AttrKeys.ENGINE, "b"), Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, "a"));
        assertThat(Expr.unless(up0, on(Rules.ENGINE), loading).eval(s, T0)).extracting(x -> x.labels().get(Rules.ENGINE))
                .containsExactly("a");
        assertThat(Expr.and(up0, on(Rules.ENGINE), loading).eval(s, T0)).extracting(x -> x.labels().get(Rules.ENGINE))
                .containsExactly("b");
        Expr thermal = Expr.cmp(Expr.select(HostMetrics.THERMAL_LEVEL), Op.GE, 2);
        Expr speed = Expr.cmp(Expr.select(HostMetrics.CPU_SPEED_LIMIT), Op.LT, 0.8);
        assertThat(Expr.or(thermal, speed).eval(snap(Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.5)), T0))
                .extracting(Expr.Sample::value).containsExactly(0.5);
        assertThat(Expr.or(thermal, speed).eval(snap(Point.of(HostMetrics.THERMAL_LEVEL, 3),
                Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.5)), T0)).as("same label set: the left side wins, as in PromQL")
                .extracting(Expr.Sample::value).containsExactly(3.0);
    }

    @Test
    void minOverTimeKeepsOnlyTheRange() {
        Expr sel = Expr.select(HostMetrics.PAGING_USAGE, PagingState.USED);
        Expr growth = Expr.minus(sel, Expr.Matching.ALL, Expr.minOverTime(sel, Duration.ofMinutes(10)));
        assertThat(growth.promql()).isEqualTo("system_paging_usage_bytes{system_paging_state=\"used\"} - "
                + "min_over_time(system_paging_usage_bytes{system_paging_state=\"used\"}[10m])");
        assertThat(growth.eval(snap(Point.of(HostMetrics.PAGING_USAGE, 100, PagingState.USED)), T0))
                .extracting(Expr.Sample::value).containsExactly(0.0);
        assertThat(growth.eval(snap(Point.of(HostMetrics.PAGING_USAGE, 400, PagingState.USED)),
                T0.plusSeconds(300))).extracting(Expr.Sample::value).containsExactly(300.0);
        // 11 minutes later the 100 has left the window; the lowest is now 400.
        assertThat(growth.eval(snap(Point.of(HostMetrics.PAGING_USAGE, 500, PagingState.USED)),
                T0.plusSeconds(660))).extracting(Expr.Sample::value).containsExactly(100.0);
    }

    @Test
    void countByGroupsAndVanishesWhenEmpty() {
        Expr c = Expr.countBy(Expr.cmp(Expr.select(ProbeMetrics.WINDOW_SAMPLES), Op.GT, 0), "job", "instance");
        assertThat(c.promql()).isEqualTo("count by(job, instance) (tailwatch_probe_window_samples > 0)");
        assertThat(c.eval(snap(), T0)).isEmpty();
        assertThat(c.eval(snap(Point.of(ProbeMetrics.WINDOW_SAMPLES, 3, AttrKeys.ENGINE, "a", AttrKeys.MODEL, "m", AttrKeys.SCENARIO, "s"),
                Point.of(ProbeMetrics.WINDOW_SAMPLES, 4, AttrKeys.ENGINE, "b", AttrKeys.MODEL, "m", AttrKeys.SCENARIO, "s")), T0))
                .containsExactly(new Expr.Sample(Map.of(), 2));
    }

    @Test
    void numbersPrintAsPromqlLiterals() {
        assertThat(Expr.number(1073741824)).isEqualTo("1073741824");
        assertThat(Expr.number(0.8)).isEqualTo("0.8");
        assertThat(Expr.number(0.5)).isEqualTo("0.5");
    }
}
