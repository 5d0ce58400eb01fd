package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every macOS sampler makes native calls, so every one must name a probe of the self-check: a sampler added
 * to {@link MacSources} without one (or naming a probe that does not exist) would run its calls in the daemon
 * on an OS build the self-check never saw, where a crash takes the agent down. Building the list loads nothing
 * native, so this runs on Linux.
 */
class EveryNativeReadIsSelfCheckedTest {
    @Test
    void everyMacSamplerNamesAProbeOfTheSelfCheck() throws Exception {
        List<Sampler> samplers = MacSources.samplers(Config.defaults(Map.of()));
        Set<String> probes = new HashSet<>();
        for (NativeProbe p : new MacProbes().probes()) {
            assertThat(probes.add(p.id())).as("probe id %s is unique", p.id()).isTrue();
        }
        assertThat(samplers).isNotEmpty();
        for (Sampler s : samplers) {
            assertThat(s).as("sampler %s bypasses the self-check", s.name()).isInstanceOf(NativeSampler.class);
            String id = ((NativeSampler) s).probeId();
            assertThat(id).as("sampler %s names no probe", s.name()).isNotNull();
            assertThat(probes).as("sampler %s names probe %s", s.name(), id).contains(id);
        }
        // The new native reads each have their own probe, so a wrong layout disables that source alone.
        assertThat(samplers).filteredOn(s -> s instanceof MacClpcPowerSampler).singleElement()
                .satisfies(s -> assertThat(((NativeSampler) s).probeId()).isEqualTo(MacProbes.IOREPORT_CLPC));
        assertThat(samplers).filteredOn(s -> s instanceof MacAneSampler).singleElement()
                .satisfies(s -> assertThat(((NativeSampler) s).probeId()).isEqualTo(MacProbes.IOREPORT_ANE));
        assertThat(samplers).filteredOn(s -> s instanceof MacPowerSampler).singleElement()
                .satisfies(s -> assertThat(((NativeSampler) s).probeId()).isEqualTo(MacProbes.IOREPORT_ENERGY));
    }
}
