package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ANE busy share from state channels laid out as IOReport gives them (state name and residency each). */
class AneResidencyTest {
    static IOReportChannel ane(String name, long active, long inactive) {
        return new IOReportChannel(AneResidency.GROUP, "", name, "", 0, List.of(
                new IOReportChannel.State("INACTIVE", inactive), new IOReportChannel.State("ACTIVE", active)));
    }

    @Test
    void busyShareIsActiveOverActivePlusInactiveAcrossBothDies() throws Exception {
        // Die 0: 300 of 1,000 ticks active; die 1: 100 of 1,000. (300 + 100) / 2,000 = 0.2.
        MacSamplersTest.ScriptedIOReport io = new MacSamplersTest.ScriptedIOReport();
        io.deltas.add(new IOReportDelta(1.0, List.of(ane("ANE0", 300, 700), ane("ANE1", 100, 900))));
        io.deltas.add(new IOReportDelta(1.0, List.of(ane("ANE0", 0, 1000))));
        MacAneSampler s = new MacAneSampler(Lazy.of("ane", () -> io));
        assertThat(s.sample()).isEmpty(); // baseline
        List<Point> p = s.sample();
        assertThat(p).singleElement().satisfies(x -> {
            assertThat(x.metric()).isEqualTo(HostMetrics.ANE_RESIDENCY);
            assertThat(x.value()).isCloseTo(0.2, within(1e-12));
        });
        new MetricHub().publish("host/ane", p);
        // An idle ANE is a real 0, not absent.
        assertThat(s.sample()).singleElement().satisfies(x -> assertThat(x.value()).isZero());
    }

    @Test
    void absentWhereTheCountersAreNot() throws Exception {
        // No ACTIVE/INACTIVE states (another driver's states), an empty interval, INT64_MIN fill: unknown.
        assertThat(AneResidency.busyShare(List.of(new IOReportChannel(AneResidency.GROUP, "", "ANE0", "", 0,
                List.of(new IOReportChannel.State("ON", 10), new IOReportChannel.State("OFF", 10)))))).isNull();
        assertThat(AneResidency.busyShare(List.of(ane("ANE0", 0, 0)))).isNull();
        assertThat(AneResidency.busyShare(List.of(ane("ANE0", IOReportChannel.NO_VALUE, IOReportChannel.NO_VALUE)))).isNull();
        // A Mac without the group (Intel): the sampler exports nothing and does not fail.
        MacAneSampler none = new MacAneSampler(Lazy.of("ane", () -> {
            throw new IOException("IOReport group H11ANE", new IOReportGroupMissing(AneResidency.GROUP));
        }));
        assertThat(none.sample()).isEmpty();
    }

    @Test
    void theSelfCheckRejectsChannelsWithoutTheResidencyStates() throws Exception {
        AneResidency.checkLayout(List.of(ane("ANE0", 1, 2)));
        assertThatThrownBy(() -> AneResidency.checkLayout(List.of(new IOReportChannel(AneResidency.GROUP, "", "ANE0", "mJ", 5, List.of()))))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("ACTIVE and INACTIVE");
    }
}
