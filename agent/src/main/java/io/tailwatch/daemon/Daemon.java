package io.tailwatch.daemon;

import io.javalin.Javalin;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import io.tailwatch.core.host.platform.ResourceInfo;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.daemon.alerts.RuleExport;
import io.tailwatch.daemon.alerts.WebhookSink;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.daemon.api.BasicAuthGuard;
import io.tailwatch.daemon.api.ListenerSecurity;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.daemon.status.AlertsStatus;
import io.tailwatch.daemon.status.HostStatus;
import io.tailwatch.daemon.status.SelfCheckStatus;
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.daemon.status.StatusHistory;
import io.tailwatch.daemon.status.ThresholdsStatus;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.OtlpExporter;
import io.tailwatch.metrics.PrometheusExporter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the agent: sources -> hub (immutable snapshots) -> rules -> exporters, plus the HTTP API.
 * Start order: exporters, HTTP (so a busy port fails fast), then the loops. Stop order reverses it
 * and ends with a final OTLP flush.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private final Config config;
    private final Map<String, String> env;
    private final Clock clock = Clock.systemUTC();
    private final MetricHub hub;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<StatusContributor> status = new ArrayList<>();
    private final List<Consumer<Javalin>> routes = new ArrayList<>();
    private HostSampling host;
    private OtlpExporter otlp;
    private ApiServer http;
    private EngineSignalMonitor signals;
    private BaselineStore baselines;
    private RuleEngine rules;
    private volatile WebhookSink webhook;
    private EngineMonitor engines;
    private AutoEngines auto;
    private StatusHistory history;

    private final List<io.tailwatch.core.host.Sampler> samplers;
    /** The platform's {@code NativeProbes} class for the self-check, or null (no native samplers). */
    private String nativeProbes = HostSources.nativeProbesClass();
    private NativeSelfCheck.Report selfCheck = NativeSelfCheck.Report.NONE;

    public Daemon(Config config, Map<String, String> env) {
        this(config, env, HostSources.forThisHost(config));
    }

    /** With explicit samplers (tests, tools). */
    public Daemon(Config config, Map<String, String> env, List<io.tailwatch.core.host.Sampler> samplers) {
        this.config = config;
        this.env = env;
        this.samplers = List.copyOf(samplers);
        this.hub = new MetricHub(clock, MetricHub.Limits.DEFAULT.withExpiry(seriesExpiry(config)));
    }

    /**
     * A histogram series expires after two probe windows of the longest scenario (configured, or the
     * default one given to a discovered engine), and never sooner than the hub's default.
     */
    static java.time.Duration seriesExpiry(Config config) {
        java.time.Duration longest = io.tailwatch.core.config.WindowRequirements.of(config.rules(), config.alerts())
                .defaultWindow(java.time.Duration.ofSeconds(60));
        for (io.tailwatch.core.config.EngineConfig e : config.engines()) {
            for (io.tailwatch.core.config.EngineConfig.Scenario s : e.scenarios()) {
                if (s.window().compareTo(longest) > 0) {
                    longest = s.window();
                }
            }
        }
        java.time.Duration two = longest.multipliedBy(2);
        return two.compareTo(MetricHub.Limits.DEFAULT.expiry()) > 0 ? two : MetricHub.Limits.DEFAULT.expiry();
    }

    public Daemon start() {
        Map<String, String> resource = ResourceInfo.withEnvironment(ResourceInfo.detect(), env);
        PrometheusExporter prometheus = new PrometheusExporter(resource);
        hub.addSink(prometheus);
        hub.publish("build", List.of(io.tailwatch.metrics.SelfMetrics.buildInfo(ResourceInfo.version())));
        if (OtlpExporter.enabled(config.otlp().settings(), env)) {
            otlp = OtlpExporter.start(config.otlp().settings(), hub, resource);
            hub.addSink(otlp);
            LOG.info("OTLP export on: {}", withoutCredentials(otlp.endpoint()));
        }
        List<io.tailwatch.core.host.Sampler> running = samplers;
        List<String> probeIds = NativeSelfCheck.probeIds(samplers);
        if (nativeProbes != null && !probeIds.isEmpty()) {
            selfCheck = new NativeSelfCheck(dataDir(env), NativeSelfCheck.osBuild() + "; tailwatch " + ResourceInfo.version(),
                    nativeProbes).atBoot(probeIds);
            running = NativeSelfCheck.gate(samplers, selfCheck);
        }
        host = new HostSampling(running, config.host().interval(), config.host().timeout(),
                hub, clock);
        NativeSelfCheck.Report checked = selfCheck;
        if (!checked.results().isEmpty()) {
            status.add(new StatusContributor() {
                public String name() {
                    return "native_self_check";
                }

                public Object status() {
                    return SelfCheckStatus.of(checked);
                }
            });
        }
        status.add(new StatusContributor() {
            public String name() {
                return "host";
            }

            public Object status() {
                io.tailwatch.core.host.HostSnapshot latest = host.latest();
                return HostStatus.of(latest, host.previousOf(latest));
            }
        });
        engines = new EngineMonitor(config.engines(), hub, () -> host.latest(), clock);
        signals = new EngineSignalMonitor(config.engines(), hub, clock);
        StatusContributor enginesPart = engines.status();
        status.add(new StatusContributor() {
            public String name() {
                return enginesPart.name();
            }

            public Object status() {
                return io.tailwatch.daemon.signals.EngineSignalStatus.addTo(enginesPart.status(), signals);
            }
        });
        engines.addProbeListener(signals::onProbe);
        if (config.autoEngines()) {
            auto = new AutoEngines(config.discovery(), engines, signals, clock,
                    ports -> io.tailwatch.daemon.engine.EngineDiscovery.scan(AutoEngines.HOST, ports));
            closeables.add(auto);
            status.add(auto);
        }
        baselines = BaselineStore.open(config.alerts().baselineFile());
        rules = new RuleEngine(config.rules(), RuleExport.interactiveScenarios(config), hub, baselines,
                config.alerts().baselineMinSamples(), config.alerts().resolvedRetention(), config.alerts().runbookBaseUrl());
        rules.exportBaselinesOf(() -> engines.watches().stream().map(w -> w.config().name()).toList());
        host.addListener(snap -> {
            // The webhook counters go in just before the rules read them (WebhookNotificationsDropped).
            WebhookSink w = webhook;
            if (w != null) {
                hub.publish("alerts/webhook", io.tailwatch.daemon.alerts.WebhookMetrics.points(w.stats()));
            }
            rules.evaluate(snap.at());
        });
        status.add(new AlertsStatus(rules, () -> webhook));
        routes.add(app -> app.get("/api/v1/alerts", ctx -> ApiServer.json(ctx, Map.of("alerts", rules.alerts()))));
        status.add(new ThresholdsStatus(config.rules()));
        history = new StatusHistory(config.host().interval());
        host.addListener(snap -> history.record(snap.at(), HostStatus.of(snap, host.previousOf(snap)), rules.signals()));
        routes.add(app -> app.get("/api/v1/history", ctx -> ApiServer.json(ctx, history.toJson(clock.instant()))));
        routes.add(io.tailwatch.daemon.api.StatusPage::register);
        Duration interval = config.host().interval();
        ApiServer.Health health = () -> {
            Map<String, Duration> stuck = host.stuck();
            if (!stuck.isEmpty()) {
                StringBuilder b = new StringBuilder("degraded:");
                stuck.forEach((name, age) -> b.append(" sampler ").append(name).append(" stuck for ")
                        .append(age.toSeconds()).append(" s;"));
                return b.append(" the other samplers run").toString();
            }
            Instant last = host.lastCompleted();
            if (last == null) {
                return "no host sample completed yet";
            }
            Duration age = Duration.between(last, clock.instant());
            if (age.compareTo(interval.multipliedBy(3)) > 0) {
                return "last host sample completed " + age.toSeconds() + " s ago (interval " + interval.toSeconds() + " s)";
            }
            return null;
        };
        routes.add(io.tailwatch.daemon.api.EngineRestartRoute.of(config, env));
        LiveWebConfig web = null;
        if (config.server().webConfigFile() != null) {
            try {
                web = LiveWebConfig.load(config.server().webConfigFile());
            } catch (io.tailwatch.core.config.ConfigException e) {
                closeQuietly();
                throw new WebConfigFailure(e.getMessage());
            }
        }
        boolean token = config.server().authToken() != null;
        try {
            http = new ApiServer(prometheus, health, status, config.server().authToken(), config.server().allowedHosts(),
                    routes, ResourceInfo::version);
            if (web != null) {
                BasicAuthGuard guard = new BasicAuthGuard(web, token);
                guard.publishTo(hub);
                host.addListener(snap -> guard.publishTo(hub));
                http.withWebConfig(web, guard);
            }
            http.start(config.server().host(), config.server().port());
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
        ListenerSecurity security = new ListenerSecurity(config.server().host(), http.port(), web, token);
        status.add(security);
        if (security.warning() != null) {
            LOG.warn("{}", security.warning());
        }
        String scheme = security.tls() ? "https://" : "http://";
        if (config.alerts().webhook().enabled()) {
            webhook = new WebhookSink(config.alerts().webhook(),
                    scheme + io.tailwatch.core.config.HostPort.format(config.server().host(), http.port()), clock);
            rules.addListener(webhook);
            closeables.add(webhook);
        }
        host.start();
        engines.start();
        signals.start();
        if (auto != null) {
            auto.start();
        }
        LOG.info("tailwatch {} listening on {}{}", ResourceInfo.version(),
                io.tailwatch.core.config.HostPort.format(config.server().host(), http.port()),
                (security.tls() ? " (HTTPS" : " (HTTP") + (security.basicAuth() ? ", basic auth)" : ")"));
        return this;
    }

    /** The web config file cannot be used (it changed between the config check and the start). */
    public static final class WebConfigFailure extends RuntimeException {
        public WebConfigFailure(String message) {
            super(message);
        }
    }

    /**
     * The {@code NativeProbes} class the native self-check's child process runs (null: no check); call
     * before {@link #start()}. The platform's by default.
     */
    public Daemon withNativeProbes(String providerClass) {
        this.nativeProbes = providerClass;
        return this;
    }

    /** What the native self-check found at start ({@link NativeSelfCheck.Report#NONE} when none ran). */
    public NativeSelfCheck.Report selfCheck() {
        return selfCheck;
    }

    /** The data directory: {@code TAILWATCH_DATA_DIR} when set, else the platform's default. */
    static java.nio.file.Path dataDir(Map<String, String> env) {
        String override = env.get("TAILWATCH_DATA_DIR");
        if (override != null && !override.isBlank()) {
            return java.nio.file.Path.of(override);
        }
        return io.tailwatch.core.config.AlertsConfig.defaultDataDir(env);
    }

    /** Adds HTTP routes; call before {@link #start()}. */
    public Daemon withRoutes(Consumer<Javalin> r) {
        routes.add(r);
        return this;
    }

    public int port() {
        return http.port();
    }

    public MetricHub hub() {
        return hub;
    }

    public HostSampling host() {
        return host;
    }

    /** The rule evaluator (alerts and the figures behind them). */
    public RuleEngine rules() {
        return rules;
    }

    /** Where single-request baselines are kept; the concurrency ladder stores its level-1 p95 here. */
    public BaselineStore baselines() {
        return baselines;
    }

    public EngineMonitor engines() {
        return engines;
    }

    /** The last hour of the moving signals (the status page's charts). */
    public StatusHistory history() {
        return history;
    }

    public EngineSignalMonitor signals() {
        return signals;
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        if (http != null) {
            http.close();
        }
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                LOG.warn("error while stopping: {}", e.toString());
            }
        }
        if (signals != null) {
            signals.close();
        }
        if (engines != null) {
            engines.close();
        }
        if (host != null) {
            host.close();
        }
        if (otlp != null) {
            otlp.close();
        }
    }

    /** An endpoint URL for the log: user info, query and fragment removed (they may carry secrets). */
    static String withoutCredentials(String url) {
        try {
            java.net.URI u = java.net.URI.create(url);
            if (u.getScheme() == null || u.getHost() == null) {
                return url.replaceAll("[?#].*$", "");
            }
            return new java.net.URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), null, null).toString();
        } catch (IllegalArgumentException | java.net.URISyntaxException e) {
            return "(unparseable endpoint)";
        }
    }
}
