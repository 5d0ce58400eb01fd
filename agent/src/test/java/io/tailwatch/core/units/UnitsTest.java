package io.tailwatch.core.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void durations() {
        assertThat(Units.duration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Units.duration("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Units.duration("2m30s")).isEqualTo(Duration.ofSeconds(150));
        assertThat(Units.duration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Units.duration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThatThrownBy(() -> Units.duration("5")).hasMessageContaining("bad duration");
        assertThatThrownBy(() -> Units.duration("5 s")).hasMessageContaining("bad duration");
        assertThatThrownBy(() -> Units.duration("-1s")).hasMessageContaining("bad duration");
    }

    @Test
    void sizes() {
        assertThat(Units.bytes("1GiB")).isEqualTo(1L << 30);
        assertThat(Units.bytes("512MiB")).isEqualTo(512L << 20);
        assertThat(Units.bytes("2GB")).isEqualTo(2_000_000_000L);
        assertThat(Units.bytes("4096")).isEqualTo(4096);
        assertThat(Units.bytes("1.5 GiB")).isEqualTo(3L << 29);
        assertThatThrownBy(() -> Units.bytes("1 parsec")).hasMessageContaining("bad size");
    }

    @Test
    void formatRoundTrips() {
        for (String s : new String[] {"250ms", "5s", "2m", "1h"}) {
            assertThat(Units.format(Units.duration(s))).isEqualTo(s);
        }
        assertThat(Units.formatBytes(1L << 30)).isEqualTo("1.00 GiB");
    }
}
