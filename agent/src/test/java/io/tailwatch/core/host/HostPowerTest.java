package io.tailwatch.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.AttrValues.PowerSource;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostPowerTest {
    private static HostSnapshot snap(Point... points) {
        return new HostSnapshot(Instant.parse("2026-01-01T00:00:00Z"), List.of(points), Map.of());
    }

    @Test
    void appleRailsAreSummed() {
        HostPower p = HostPower.of(snap(HostMetrics.power("cpu", 4.5), HostMetrics.power("gpu", 20.25),
                HostMetrics.power("ane", 0.25), HostMetrics.power("dram", 1.5), HostMetrics.power("gpu_sram", 0.5),
                HostMetrics.railState("cpu", RailStatus.MEASURED)));
        // cpu + gpu + ane + dram; gpu_sram is not one of the summed rails
        assertThat(p).isEqualTo(new HostPower(26.5, PowerSource.RAILS));
    }

    @Test
    void raplPackagePlusDramAreTheRailsBeforePsys() {
        HostPower p = HostPower.of(snap(HostMetrics.power("package", 35.0), HostMetrics.power("core", 20.0),
                HostMetrics.power("dram", 3.0), HostMetrics.power("psys", 50.0)));
        assertThat(p).isEqualTo(new HostPower(38.0, PowerSource.RAILS));
    }

    @Test
    void aFrozenRailHandsOverToTheSystemFigure() {
        List<Point> points = new ArrayList<>(List.of(HostMetrics.power("gpu", 10.0), HostMetrics.power("psys", 42.0),
                HostMetrics.railState("cpu", RailStatus.FROZEN), HostMetrics.railState("gpu", RailStatus.MEASURED)));
        HostPower p = HostPower.of(snap(points.toArray(Point[]::new)));
        assertThat(p).isEqualTo(new HostPower(42.0, PowerSource.SYSTEM));
    }

    @Test
    void frozenRailsAndNoSystemFigureIsUnknown() {
        assertThat(HostPower.of(snap(HostMetrics.power("gpu", 10.0), HostMetrics.railState("cpu", RailStatus.FROZEN))))
                .isNull();
    }

    @Test
    void noPowerAtAllIsUnknownNotZero() {
        assertThat(HostPower.of(snap(Point.of(HostMetrics.MEMORY_LIMIT, 1e9)))).isNull();
        assertThat(HostPower.of(HostSnapshot.EMPTY)).isNull();
        assertThat(HostPower.of(null)).isNull();
    }
}
