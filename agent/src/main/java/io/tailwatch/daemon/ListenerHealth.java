package io.tailwatch.daemon;

import io.tailwatch.core.host.HostSampling;
import io.tailwatch.daemon.api.ApiServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The listener's health answer, from the host loop in force: degraded while a sampler is stuck (the others
 * run on), unhealthy before the first sample and when the last one completed more than three intervals ago.
 */
final class ListenerHealth implements ApiServer.Health {
    private final Supplier<HostSampling> host;
    private final Supplier<Duration> interval;
    private final Clock clock;

    ListenerHealth(Supplier<HostSampling> host, Supplier<Duration> interval, Clock clock) {
        this.host = host;
        this.interval = interval;
        this.clock = clock;
    }

    @Override
    public String problem() {
        HostSampling h = host.get();
        Duration interval = this.interval.get();
        Map<String, Duration> stuck = h.stuck();
        if (!stuck.isEmpty()) {
            StringBuilder b = new StringBuilder("degraded:");
            stuck.forEach((name, age) -> b.append(" sampler ").append(name).append(" stuck for ")
                    .append(age.toSeconds()).append(" s;"));
            return b.append(" the other samplers run").toString();
        }
        Instant last = h.lastCompleted();
        if (last == null) {
            return "no host sample completed yet";
        }
        Duration age = Duration.between(last, clock.instant());
        if (age.compareTo(interval.multipliedBy(3)) > 0) {
            return "last host sample completed " + age.toSeconds() + " s ago (interval " + interval.toSeconds() + " s)";
        }
        return null;
    }
}
