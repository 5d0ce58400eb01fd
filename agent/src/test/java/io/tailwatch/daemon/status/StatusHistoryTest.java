package io.tailwatch.daemon.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusHistoryTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    private static Signals signals(Double swap, Double pressure, List<Signals.Window> windows) {
        return new Signals(new Signals.Host(swap, null, pressure, null, null, null, null), List.of(), windows);
    }

    private static Signals.Window window(String engine, Double ttftP95, Double e2eP95, Double decode) {
        return new Signals.Window(engine, "m", "interactive", null, e2eP95, null, null, ttftP95, null, 0.0, 5.0,
                null, decode, true);
    }

    private static Map<String, Object> host(Map<String, Object> power) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("power", power);
        return h;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> series(StatusHistory h, Instant now) {
        return (List<Map<String, Object>>) h.toJson(now).get("series");
    }

    @SuppressWarnings("unchecked")
    private static List<Object[]> points(StatusHistory h, Instant now, String chart, String engine) {
        for (Map<String, Object> s : series(h, now)) {
            Map<String, String> l = (Map<String, String>) s.get("labels");
            if (s.get("chart").equals(chart) && (engine == null || engine.equals(l.get("engine")))) {
                return (List<Object[]>) s.get("points");
            }
        }
        return List.of();
    }

    @Test
    void stepIsTenSecondsOrTheHostIntervalWhenLonger() {
        assertThat(new StatusHistory(Duration.ofSeconds(1)).stepSeconds()).isEqualTo(10);
        assertThat(new StatusHistory(Duration.ofSeconds(30)).stepSeconds()).isEqualTo(30);
        assertThat(new StatusHistory(Duration.ofMillis(10_500)).stepSeconds()).isEqualTo(11);
    }

    @Test
    void recordsEachChartPerSlotWithTheLastValueOfTheSlot() {
        StatusHistory h = new StatusHistory(Duration.ofSeconds(1));
        h.record(T0, host(Map.of("package_watts", 12.5)), signals(100.0, 0.0, List.of(window("mlx", 0.2, 1.5, 40.0))));
        h.record(T0.plusSeconds(3), host(Map.of("package_watts", 13.0)), signals(200.0, 1.0,
                List.of(window("mlx", 0.25, 1.6, 41.0))));
        h.record(T0.plusSeconds(10), host(Map.of("package_watts", 14.0)), signals(300.0, 2.0,
                List.of(window("mlx", 0.3, 1.7, 42.0))));
        Instant now = T0.plusSeconds(11);
        List<Object[]> swap = points(h, now, StatusHistory.SWAP, null);
        assertThat(swap).hasSize(2);
        assertThat(swap.get(0)).containsExactly(T0.getEpochSecond(), 200.0);
        assertThat(swap.get(1)).containsExactly(T0.getEpochSecond() + 10, 300.0);
        assertThat(points(h, now, StatusHistory.PRESSURE, null)).extracting(p -> p[1]).containsExactly(1.0, 2.0);
        assertThat(points(h, now, StatusHistory.TTFT_P95, "mlx")).extracting(p -> p[1]).containsExactly(0.25, 0.3);
        assertThat(points(h, now, StatusHistory.E2E_P95, "mlx")).extracting(p -> p[1]).containsExactly(1.6, 1.7);
        assertThat(points(h, now, StatusHistory.DECODE, "mlx")).extracting(p -> p[1]).containsExactly(41.0, 42.0);
        assertThat(points(h, now, StatusHistory.POWER, null)).extracting(p -> p[1]).containsExactly(13.0, 14.0);
        Map<String, Object> power = series(h, now).stream().filter(s -> s.get("chart").equals(StatusHistory.POWER))
                .findFirst().orElseThrow();
        assertThat(power.get("labels")).isEqualTo(Map.of("rail", "package"));
    }

    @Test
    void cpuBusyIsRecordedWhenTheHostReportsIt() {
        StatusHistory h = new StatusHistory(Duration.ofSeconds(5));
        Map<String, Object> host = host(Map.of());
        host.put("cpu", Map.of("user_ratio", 0.25, "idle_ratio", 0.7, "busy_ratio", 0.3));
        h.record(T0, host, signals(null, null, List.of()));
        assertThat(points(h, T0, StatusHistory.CPU, null)).extracting(p -> p[1]).containsExactly(0.3);
        h.record(T0.plusSeconds(10), host(Map.of()), signals(null, null, List.of()));
        assertThat(points(h, T0.plusSeconds(10), StatusHistory.CPU, null)).hasSize(1);
    }

    @Test
    void anUnknownValueLeavesAGapNotAZero() {
        StatusHistory h = new StatusHistory(Duration.ofSeconds(10));
        h.record(T0, host(Map.of()), signals(1.0, null, List.of(window("mlx", 0.2, null, null))));
        h.record(T0.plusSeconds(10), host(Map.of()), signals(null, null, List.of(window("mlx", null, null, null))));
        h.record(T0.plusSeconds(20), host(Map.of()), signals(3.0, null, List.of(window("mlx", 0.4, null, null))));
        Instant now = T0.plusSeconds(25);
        assertThat(points(h, now, StatusHistory.SWAP, null)).extracting(p -> p[0])
                .containsExactly(T0.getEpochSecond(), T0.getEpochSecond() + 20);
        assertThat(points(h, now, StatusHistory.TTFT_P95, "mlx")).extracting(p -> p[1]).containsExactly(0.2, 0.4);
        // Never known at all: no series, so the page says "not readable" instead of drawing a 0 line.
        assertThat(series(h, now)).extracting(s -> s.get("chart"))
                .doesNotContain(StatusHistory.PRESSURE, StatusHistory.E2E_P95, StatusHistory.DECODE, StatusHistory.POWER);
    }

    @Test
    void eachRingHoldsOneHourAndNoMore() {
        StatusHistory h = new StatusHistory(Duration.ofSeconds(1));
        for (int s = 0; s < 2 * 3600; s++) {
            h.record(T0.plusSeconds(s), host(Map.of()), signals((double) s, null, List.of()));
        }
        Instant now = T0.plusSeconds(2 * 3600 - 1);
        List<Object[]> swap = points(h, now, StatusHistory.SWAP, null);
        assertThat(swap).hasSize(StatusHistory.SLOTS);
        long first = (long) swap.get(0)[0];
        long last = (long) swap.get(swap.size() - 1)[0];
        assertThat(last - first).isEqualTo(3600 - 10);
        assertThat(last).isEqualTo(now.getEpochSecond() / 10 * 10);
        assertThat((double) swap.get(swap.size() - 1)[1]).isEqualTo(2 * 3600 - 1);
    }

    @Test
    void aSeriesSilentForAnHourIsRemovedAndTheCountIsBounded() {
        StatusHistory h = new StatusHistory(Duration.ofSeconds(10));
        List<Signals.Window> many = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            many.add(window("e" + i, 0.1, 0.2, 30.0));
        }
        h.record(T0, host(Map.of()), signals(1.0, 0.0, many));
        // 2 host series + 3 per window, capped.
        assertThat(h.size()).isEqualTo(StatusHistory.MAX_SERIES);
        assertThat(h.toJson(T0).get("dropped_series")).isEqualTo((long) (2 + 3 * 30 - StatusHistory.MAX_SERIES));
        // An hour later only the host series still report: the windows' series are gone, room is back.
        h.record(T0.plusSeconds(3600), host(Map.of()), signals(1.0, 0.0, List.of()));
        assertThat(h.size()).isEqualTo(2);
        h.record(T0.plusSeconds(3610), host(Map.of()), signals(1.0, 0.0, List.of(window("new", 0.1, 0.2, 30.0))));
        assertThat(h.size()).isEqualTo(5);
    }

    private static HostSnapshot paging(Instant at, Double in, Double out) {
        List<Point> points = new ArrayList<>();
        if (in != null) {
            points.add(Point.of(HostMetrics.PAGING_OPERATIONS, in, PagingDirection.IN));
        }
        if (out != null) {
            points.add(Point.of(HostMetrics.PAGING_OPERATIONS, out, PagingDirection.OUT));
        }
        return new HostSnapshot(at, points, Map.of());
    }

    @Test
    void pagingIsPagesPerSecondOverTheLastHostIntervalAndChartedByDirection() {
        // 1000 -> 1500 pages in over 2 s is 250/s; 2000 -> 2003 out is 1.5/s.
        HostSnapshot before = paging(T0, 1000.0, 2000.0);
        HostSnapshot now = paging(T0.plusSeconds(2), 1500.0, 2003.0);
        Map<String, Object> status = HostStatus.of(now, before);
        assertThat(status.get("paging")).isEqualTo(Map.of("in_per_second", 250.0, "out_per_second", 1.5));
        StatusHistory h = new StatusHistory(Duration.ofSeconds(1));
        h.record(now.at(), status, signals(null, null, List.of()));
        List<Map<String, Object>> paging = series(h, T0.plusSeconds(3)).stream()
                .filter(x -> x.get("chart").equals(StatusHistory.PAGING)).toList();
        assertThat(paging).extracting(x -> x.get("labels")).containsExactlyInAnyOrder(Map.of("direction", "in"), Map.of("direction", "out"));
        assertThat(points(h, T0.plusSeconds(3), StatusHistory.PAGING, null).get(0)[1]).isIn(250.0, 1.5);
    }

    @Test
    void pagingIsAbsentNotZeroWhenUnknown() {
        HostSnapshot now = paging(T0.plusSeconds(2), 1500.0, null);
        // No earlier reading, no counter in the earlier reading, no counter now, a counter that went back, no time between.
        assertThat(HostStatus.of(now, null).get("paging")).isEqualTo(Map.of());
        assertThat(HostStatus.of(now, paging(T0, null, null)).get("paging")).isEqualTo(Map.of());
        assertThat(HostStatus.of(now, paging(T0, 1000.0, 7.0)).get("paging")).isEqualTo(Map.of("in_per_second", 250.0));
        assertThat(HostStatus.of(now, paging(T0, 2000.0, null)).get("paging")).isEqualTo(Map.of());
        assertThat(HostStatus.of(now, paging(T0.plusSeconds(2), 1000.0, null)).get("paging")).isEqualTo(Map.of());
        StatusHistory h = new StatusHistory(Duration.ofSeconds(1));
        h.record(now.at(), HostStatus.of(now, null), signals(null, null, List.of()));
        assertThat(points(h, T0.plusSeconds(3), StatusHistory.PAGING, null)).isEmpty();
    }
}
