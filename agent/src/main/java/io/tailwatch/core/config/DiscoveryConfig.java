package io.tailwatch.core.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Engine discovery for {@code engines: auto}: the well-known loopback ports (Ollama 11434,
 * mlx_lm.server and llama.cpp 8080, LM Studio 1234, vLLM 8000) plus {@code ports}, checked often at start,
 * after a reload and when a port opens, then every {@code interval}. An engine found once stays watched
 * until a reload finds it gone, so one that goes down later is EngineDown as any other; an empty result
 * watches nothing and pages nobody.
 *
 * @param auto      {@code engines: auto} was given
 * @param wellKnown check the well-known ports (false: only {@code ports})
 * @param ports     more loopback ports to check
 * @param interval  how often to look again once the first checks are done (each request has its own 2 s deadline)
 * @param portWatch how often the ports are looked at with a TCP connect (nothing sent): a port that opens is
 *                  checked at once, so an engine started later is found within about this long; also the
 *                  first wait between checks after start, a reload or a port opening
 * @param healthInterval the health-check interval of each engine discovery finds ({@code health.interval}
 *                  of a configured engine, same default)
 */
public record DiscoveryConfig(boolean auto, boolean wellKnown, List<Integer> ports, Duration interval, Duration portWatch,
                              Duration healthInterval) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(5);
    public static final Duration DEFAULT_PORT_WATCH = Duration.ofSeconds(15);
    /** As a configured engine's {@code health.interval} when unset. */
    public static final Duration DEFAULT_HEALTH_INTERVAL = EngineConfig.DEFAULT_HEALTH_INTERVAL;
    public static final DiscoveryConfig OFF = new DiscoveryConfig(false, true, List.of(), DEFAULT_INTERVAL);

    public DiscoveryConfig {
        ports = List.copyOf(ports);
        if (portWatch.isNegative() || portWatch.isZero()) {
            throw new IllegalArgumentException("port watch must be positive");
        }
        if (healthInterval.isNegative() || healthInterval.isZero()) {
            throw new IllegalArgumentException("health interval must be positive");
        }
    }

    /** With the default health interval of found engines (15 s). */
    public DiscoveryConfig(boolean auto, boolean wellKnown, List<Integer> ports, Duration interval, Duration portWatch) {
        this(auto, wellKnown, ports, interval, portWatch, DEFAULT_HEALTH_INTERVAL);
    }

    /** With the default port watch (15 s). */
    public DiscoveryConfig(boolean auto, boolean wellKnown, List<Integer> ports, Duration interval) {
        this(auto, wellKnown, ports, interval, DEFAULT_PORT_WATCH);
    }

    static DiscoveryConfig read(Section s, boolean auto) {
        boolean wellKnown = s.bool("well_known_ports", true);
        List<Integer> ports = new ArrayList<>();
        for (String p : s.strings("ports", List.of())) {
            try {
                int n = Integer.parseInt(p.trim());
                if (n < 1 || n > 65535) {
                    throw new NumberFormatException();
                }
                ports.add(n);
            } catch (NumberFormatException e) {
                s.problem("ports", "'" + p + "' is not a TCP port (1..65535)");
            }
        }
        if (ports.size() > 28) {
            s.problem("ports", "at most 28 extra ports (with the 4 well-known ones, 32 per check)");
        }
        Duration interval = s.duration("interval", DEFAULT_INTERVAL, Duration.ofSeconds(30), Duration.ofHours(24));
        // At most the shortest interval, so the port watch never waits longer than a scheduled check.
        Duration portWatch = s.duration("port_watch", DEFAULT_PORT_WATCH, Duration.ofSeconds(1), Duration.ofSeconds(30));
        Duration health = s.duration("health_interval", DEFAULT_HEALTH_INTERVAL, Duration.ofSeconds(1), Duration.ofHours(1));
        if (!wellKnown && ports.isEmpty() && auto) {
            s.problem("ports", "with well_known_ports: false, engines: auto needs ports to check");
        }
        s.finish();
        return new DiscoveryConfig(auto, wellKnown, ports, interval, portWatch, health);
    }

    /** The ports a check looks at, well-known first. */
    public List<Integer> allPorts(List<Integer> wellKnownPorts) {
        List<Integer> out = new ArrayList<>(wellKnown ? wellKnownPorts : List.of());
        for (int p : ports) {
            if (!out.contains(p)) {
                out.add(p);
            }
        }
        return out;
    }
}
