package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.MetricHub;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MacNativeLifecycleTest {
    /** A notify registration that counts its cancellations. */
    static final class Token implements ThermalPressureSource, AutoCloseable {
        final AtomicInteger cancelled = new AtomicInteger();

        public long thermalPressureState() {
            return 0;
        }

        public void close() {
            cancelled.incrementAndGet();
        }
    }

    @Test
    void closingTheSamplingCancelsTheThermalNotifyTokenOnce() {
        Token token = new Token();
        MacThermalPressureSampler s = new MacThermalPressureSampler(Lazy.of("notify", () -> token));
        // Each reload builds a new daemon and closes the old one's sampling, samplers included.
        try (HostSampling h = new HostSampling(List.of(s), Duration.ofSeconds(5), Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            h.sampleOnce();
        }
        assertThat(token.cancelled).hasValue(1);
    }

    @Test
    void aTokenNeverOpenedIsNotOpenedToBeClosed() {
        AtomicInteger opened = new AtomicInteger();
        MacThermalPressureSampler s = new MacThermalPressureSampler(Lazy.of("notify", () -> {
            opened.incrementAndGet();
            return new Token();
        }));
        s.close();
        assertThat(opened).hasValue(0);
    }

    @Test
    void aShortHostStatistics64CountIsRefused() {
        // sizeof(struct vm_statistics64) = 152 bytes = 38 integer_t (xnu osfmk/mach/vm_statistics.h);
        // a kernel that fills fewer leaves compressor and internal/external page counts unset.
        assertThat(VmStatistics64.COUNT).isEqualTo(38);
        assertThatNoException().isThrownBy(() -> VmStatistics64.requireFullCount(38));
        assertThatThrownBy(() -> VmStatistics64.requireFullCount(37)).isInstanceOf(IOException.class)
                .hasMessageContaining("filled 37 of 38");
        assertThatThrownBy(() -> VmStatistics64.requireFullCount(0)).isInstanceOf(IOException.class);
    }
}
