package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import io.tailwatch.daemon.api.ListenerSecurity;
import io.tailwatch.daemon.proxy.EnergyPerToken;
import io.tailwatch.daemon.ready.ReadinessMonitor;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.daemon.signals.EngineSignalStatus;
import io.tailwatch.daemon.status.HostStatus;
import io.tailwatch.daemon.status.SelfCheckStatus;
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.daemon.status.ThresholdsStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The parts of {@code /api/v1/status} that {@link Daemon} wires from what it holds, one named class each.
 * A part that reads something a reload replaces takes a supplier and asks it at every call.
 */
final class StatusParts {
    private StatusParts() {
    }

    /** "native_self_check": the native samplers' probes run in a child at boot (only when some ran). */
    static final class SelfCheck implements StatusContributor {
        private final NativeSelfCheck.Report report;

        SelfCheck(NativeSelfCheck.Report report) {
            this.report = report;
        }

        @Override
        public String name() {
            return "native_self_check";
        }

        @Override
        public Object status() {
            return SelfCheckStatus.of(report);
        }
    }

    /** "host": the latest host sample beside the one before it (rates). */
    static final class Host implements StatusContributor {
        private final Supplier<HostSampling> host;

        Host(Supplier<HostSampling> host) {
            this.host = host;
        }

        @Override
        public String name() {
            return "host";
        }

        @Override
        public Object status() {
            HostSampling h = host.get();
            HostSnapshot latest = h.latest();
            return HostStatus.of(latest, h.previousOf(latest));
        }
    }

    /** The engine monitor's part with each engine's own signals and readiness verdict added. */
    static final class Engines implements StatusContributor {
        private final StatusContributor engines;
        private final EngineSignalMonitor signals;
        private final Supplier<ReadinessMonitor> readiness;

        Engines(StatusContributor engines, EngineSignalMonitor signals, Supplier<ReadinessMonitor> readiness) {
            this.engines = engines;
            this.signals = signals;
            this.readiness = readiness;
        }

        @Override
        public String name() {
            return engines.name();
        }

        @Override
        public Object status() {
            return readiness.get().addTo(EngineSignalStatus.addTo(engines.status(), signals));
        }
    }

    /** "thresholds": the rules' thresholds of the config in force. */
    static final class Thresholds implements StatusContributor {
        private final Supplier<Config> config;

        Thresholds(Supplier<Config> config) {
            this.config = config;
        }

        @Override
        public String name() {
            return "thresholds";
        }

        @Override
        public Object status() {
            return new ThresholdsStatus(config.get().rules()).status();
        }
    }

    /** The listener's security (TLS, basic auth, the exposure warning), of the listener in force. */
    static final class Listener implements StatusContributor {
        private final Supplier<ListenerSecurity> security;

        Listener(Supplier<ListenerSecurity> security) {
            this.security = security;
        }

        @Override
        public String name() {
            return security.get().name();
        }

        @Override
        public Object status() {
            return security.get().status();
        }
    }

    /** "reload": how many reloads were applied, the last one's time and the parts it restarted. */
    static final class Reloads implements StatusContributor {
        private final AtomicInteger count = new AtomicInteger();
        private volatile Instant last;
        private volatile List<String> restarted = List.of();

        /** One applied reload, at {@code at}, that restarted {@code parts}. */
        void record(List<String> parts, Instant at) {
            restarted = List.copyOf(parts);
            last = at;
            count.incrementAndGet();
        }

        @Override
        public String name() {
            return "reload";
        }

        @Override
        public Object status() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("reloads", count.get());
            m.put("last", last);
            m.put("restarted", restarted);
            return m;
        }
    }

    /** "energy_per_token": joules per output token per engine over the last minute. */
    static final class Energy implements StatusContributor {
        private final EnergyPerToken energy;

        Energy(EnergyPerToken energy) {
            this.energy = energy;
        }

        @Override
        public String name() {
            return "energy_per_token";
        }

        @Override
        public Object status() {
            return energy.status();
        }
    }
}
