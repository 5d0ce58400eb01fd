package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.host.linux.CpuFreqSampler;
import io.tailwatch.metrics.MetricHub;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ThermalThrottling over the real Linux sampler reading sysfs fixtures, on a simulated clock. */
class ThermalFixtureTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(ThermalFixtureTest.class.getResource("/fixtures/" + name).toURI());
    }

    private final MetricHub hub = new MetricHub();
    private final RuleEngine engine = new RuleEngine(RulesConfig.defaults(), List.of(), hub, null, 20, Duration.ofMinutes(15));

    private String stateAfter(CpuFreqSampler sampler, Duration span, Runnable everyCycle) throws IOException {
        for (Instant t = T0; !t.isAfter(T0.plus(span)); t = t.plusSeconds(5)) {
            everyCycle.run();
            hub.publish("host/cpufreq", sampler.sample());
            engine.evaluate(t);
        }
        return engine.alerts().stream().filter(a -> a.name().equals("ThermalThrottling")).map(a -> a.state().label())
                .findFirst().orElse(null);
    }

    @Test
    void idleHostAtFullCeilingStaysSilent() throws Exception {
        // 4 CPUs idling at 800 MHz of 3.5 GHz: the old current/max reading gave 0.23 and fired.
        assertThat(stateAfter(new CpuFreqSampler(fixture("linux-cpu-idle/sys")), Duration.ofMinutes(10), () -> { }))
                .isNull();
    }

    @Test
    void cappedHostFires() throws Exception {
        assertThat(stateAfter(new CpuFreqSampler(fixture("linux-cpu-capped/sys")), Duration.ofMinutes(3), () -> { }))
                .isEqualTo("firing");
    }

    @Test
    void risingThrottleCountersFireAtFullCeiling(@TempDir Path dir) throws Exception {
        Path sys = dir.resolve("sys");
        Path src = fixture("linux-cpu-idle/sys");
        try (Stream<Path> files = Files.walk(src)) {
            for (Path p : files.toList()) {
                Path to = sys.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        Path counter = sys.resolve("devices/system/cpu/cpu1/thermal_throttle/core_throttle_count");
        long[] n = {0};
        String state = stateAfter(new CpuFreqSampler(sys), Duration.ofMinutes(3), () -> {
            try {
                Files.writeString(counter, Long.toString(++n[0]) + "\n");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(state).isEqualTo("firing");
    }
}
