package io.tailwatch.daemon;

import io.javalin.config.RoutesConfig;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import io.tailwatch.core.host.platform.ResourceInfo;
import io.tailwatch.daemon.alerts.AlertmanagerSink;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the agent: sources -> hub (immutable snapshots) -> rules -> exporters, plus the HTTP API.
 * Start order: exporters, HTTP (so a busy port fails fast), then the loops. Stop order reverses it
 * and ends with a final OTLP flush. {@link #reconfigure} applies a reloaded config in place, restarting
 * only the parts whose settings changed (docs/reliability.md, "Reload").
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private volatile Config config;
    private final Map<String, String> env;
    private final Clock clock = Clock.systemUTC();
    private final MetricHub hub;
    private final List<StatusContributor> status = new CopyOnWriteArrayList<>();
    private final List<Consumer<RoutesConfig>> routes = new ArrayList<>();
    /** Held while the rules evaluate and while a reload swaps the evaluator. */
    private final Object evaluation = new Object();
    private final Function<Config, List<io.tailwatch.core.host.Sampler>> samplerSource;
    private Map<String, String> resource;
    private PrometheusExporter prometheus;
    private volatile HostSampling host;
    private OtlpExporter otlp;
    private ApiServer http;
    private volatile BasicAuthGuard guard;
    private volatile ListenerSecurity security;
    private EngineSignalMonitor signals;
    private volatile BaselineStore baselines;
    private volatile RuleEngine rules;
    private volatile WebhookSink webhook;
    private String webhookExternalUrl;
    private volatile AlertmanagerSink alertmanagers;
    private EngineMonitor engines;
    private volatile AutoEngines auto;
    private volatile StatusHistory history;
    private volatile io.tailwatch.daemon.api.EngineRestartRoute restart;
    /** Each engine's readiness verdict for routers (docs/routing.md). */
    private io.tailwatch.daemon.ready.ReadinessMonitor readiness;
    private final java.util.concurrent.atomic.AtomicInteger reloads = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Instant lastReload;
    private volatile List<String> lastRestarted = List.of();
    /** The engines' metering proxies: kept across reloads with their connections, reconfigured in place. */
    private volatile io.tailwatch.daemon.proxy.EngineProxies proxies;
    /** Joules per output token per engine over the last minute, from the host's power at each sample. */
    private final io.tailwatch.daemon.proxy.EnergyPerToken energy = new io.tailwatch.daemon.proxy.EnergyPerToken();
    /** The platform's {@code NativeProbes} class for the self-check, or null (no native samplers). */
    private String nativeProbes = HostSources.nativeProbesClass();
    private volatile NativeSelfCheck.Report selfCheck = NativeSelfCheck.Report.NONE;

    public Daemon(Config config, Map<String, String> env) {
        this(config, env, HostSources::forThisHost);
    }

    /** With explicit samplers (tests, tools). */
    public Daemon(Config config, Map<String, String> env, List<io.tailwatch.core.host.Sampler> samplers) {
        this(config, env, c -> samplers);
    }

    private Daemon(Config config, Map<String, String> env, Function<Config, List<io.tailwatch.core.host.Sampler>> samplers) {
        this.config = config;
        this.env = env;
        this.samplerSource = samplers;
        this.hub = new MetricHub(clock, MetricHub.Limits.DEFAULT.withExpiry(seriesExpiry(config)));
        hub.genAiConventions(io.tailwatch.metrics.GenAiConventions.from(env.get(io.tailwatch.metrics.GenAiConventions.VARIABLE)));
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
        // One agent = one data directory (per user) and one listen address, as configured (not the bound port).
        String agentKey = io.tailwatch.core.config.DataDir.of(env) + "|"
                + io.tailwatch.core.config.HostPort.format(config.server().host(), config.server().port());
        resource = ResourceInfo.withEnvironment(ResourceInfo.detect(agentKey), env);
        prometheus = new PrometheusExporter(hub, resource);
        hub.publish("build", List.of(io.tailwatch.metrics.SelfMetrics.buildInfo(ResourceInfo.version())));
        startOtlp(config);
        host = newHost(config);
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
                HostSampling h = host;
                io.tailwatch.core.host.HostSnapshot latest = h.latest();
                return HostStatus.of(latest, h.previousOf(latest));
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
                return readiness.addTo(io.tailwatch.daemon.signals.EngineSignalStatus.addTo(enginesPart.status(), signals));
            }
        });
        engines.addProbeListener((name, r) -> {
            io.tailwatch.daemon.engine.EngineWatch w = engines.watch(name);
            signals.onProbe(name, r, w != null && w.headersAtAdmission());
        });
        readiness = io.tailwatch.daemon.ready.ReadinessMonitor.of(new io.tailwatch.daemon.ready.AgentInputs(() -> engines,
                () -> signals, () -> proxies, () -> host, () -> baselines, () -> io.tailwatch.daemon.ready.AgentInputs.ttftSlo(config),
                hub, clock));
        hub.refreshBeforeReads(() -> hub.publish("ready", readiness.points()));
        routes.add(app -> app.get(io.tailwatch.daemon.ready.ReadinessMonitor.PATH, readiness::answer));
        engines.trafficModels(name -> {
            io.tailwatch.daemon.proxy.EngineProxies p = proxies;
            io.tailwatch.daemon.proxy.EngineProxy px = p == null ? null : p.proxy(name);
            return px == null ? null : px.meter().mostUsedModel();
        });
        if (config.autoEngines()) {
            auto = newAuto(config);
            status.add(auto);
        }
        baselines = BaselineStore.open(config.alerts().baselineFile());
        rules = newRules(config);
        status.add(new AlertsStatus(() -> rules, () -> webhook, () -> alertmanagers));
        routes.add(app -> app.get("/api/v1/alerts", ctx -> ApiServer.json(ctx, Map.of("alerts", rules.alerts()))));
        status.add(new StatusContributor() {
            public String name() {
                return "thresholds";
            }

            public Object status() {
                return new ThresholdsStatus(config.rules()).status();
            }
        });
        history = new StatusHistory(config.host().interval());
        routes.add(app -> app.get("/api/v1/history", ctx -> ApiServer.json(ctx, history.toJson(clock.instant()))));
        routes.add(io.tailwatch.daemon.api.StatusPage::register);
        restart = io.tailwatch.daemon.api.EngineRestartRoute.of(config, env);
        routes.add(io.tailwatch.daemon.api.EngineRestartRoute.live(() -> restart));
        LiveWebConfig web;
        try {
            web = webConfig(config);
            http = startHttp(config, web);
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
        status.add(new StatusContributor() {
            public String name() {
                return security.name();
            }

            public Object status() {
                return security.status();
            }
        });
        status.add(new StatusContributor() {
            public String name() {
                return "reload";
            }

            public Object status() {
                Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("reloads", reloads.get());
                m.put("last", lastReload);
                m.put("restarted", lastRestarted);
                return m;
            }
        });
        startWebhook(config);
        rules.addListener(this::notifyWebhook);
        startAlertmanagers(config);
        // The proxies after the API (a busy proxy port is logged, not fatal) and before the loops.
        proxies = new io.tailwatch.daemon.proxy.EngineProxies(hub, web).allowHosts(config.server().allowedHosts());
        proxies.reconfigure(config.engines());
        status.add(proxies);
        status.add(new StatusContributor() {
            public String name() {
                return "energy_per_token";
            }

            public Object status() {
                return energy.status();
            }
        });
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

    private HostSampling newHost(Config c) {
        List<io.tailwatch.core.host.Sampler> running = samplerSource.apply(c);
        List<String> probeIds = NativeSelfCheck.probeIds(running);
        if (nativeProbes != null && !probeIds.isEmpty()) {
            // A native sampler's first call on a new OS build runs in a child first; one that crashed it is kept out.
            if (selfCheck.results().isEmpty()) {
                selfCheck = new NativeSelfCheck(io.tailwatch.core.config.DataDir.of(env), NativeSelfCheck.osBuild() + "; tailwatch " + ResourceInfo.version(),
                        nativeProbes).atBoot(probeIds);
            }
            running = NativeSelfCheck.gate(running, selfCheck);
        }
        HostSampling h = new HostSampling(running, c.host().interval(), c.host().timeout(), hub, clock);
        h.addListener(snap -> {
            // The webhook counters go in just before the rules read them (WebhookNotificationsDropped).
            WebhookSink w = webhook;
            if (w != null) {
                hub.publish("alerts/webhook", io.tailwatch.daemon.alerts.WebhookMetrics.points(w.stats()));
            }
            synchronized (evaluation) {
                rules.evaluate(snap.at());
                AlertmanagerSink am = alertmanagers;
                if (am != null) {
                    am.update(rules.alerts());
                }
            }
        });
        h.addListener(snap -> history.record(snap.at(), HostStatus.of(snap, h.previousOf(snap)), rules.signals()));
        h.addListener(snap -> {
            io.tailwatch.daemon.proxy.EngineProxies p = proxies;
            if (p != null) {
                p.publish();
            }
            energy.sample(System.nanoTime(), io.tailwatch.core.host.HostPower.of(snap), outputTokens());
            hub.publish("energy", energy.points());
            hub.publish("input-rejected", io.tailwatch.core.probe.InputRange.points());
        });
        h.addListener(snap -> {
            BasicAuthGuard g = guard;
            if (g != null) {
                g.publishTo(hub);
            }
        });
        return h;
    }

    /** Each engine's output tokens so far: through its proxy plus its probes' (the energy attribution). */
    private Map<String, Long> outputTokens() {
        Map<String, Long> out = new java.util.TreeMap<>();
        EngineMonitor m = engines;
        if (m != null) {
            for (io.tailwatch.daemon.engine.EngineWatch w : m.watches()) {
                out.merge(w.config().name() + io.tailwatch.daemon.proxy.EnergyPerToken.COUNTER + "probes", w.probeOutputTokens(),
                        io.tailwatch.core.probe.InputRange::saturatingAdd);
            }
        }
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            p.outputTokens().forEach((e, t) -> out.merge(e + io.tailwatch.daemon.proxy.EnergyPerToken.COUNTER + "proxy", t,
                    io.tailwatch.core.probe.InputRange::saturatingAdd));
        }
        return out;
    }

    private AutoEngines newAuto(Config c) {
        return new AutoEngines(c.discovery(), engines, signals, clock,
                ports -> io.tailwatch.daemon.engine.EngineDiscovery.scan(AutoEngines.HOST, ports), this::followProcesses);
    }

    /** A discovered engine's processes are sampled like a listed engine's (found by its port first). */
    private void followProcesses(io.tailwatch.core.config.EngineConfig e) {
        for (io.tailwatch.core.host.Sampler s : host.samplers()) {
            if (s instanceof io.tailwatch.core.host.EngineProcessSampler p) {
                p.add(e);
            }
        }
    }

    private RuleEngine newRules(Config c) {
        RuleEngine r = new RuleEngine(c.rules(), RuleExport.interactiveScenarios(c), hub, baselines,
                c.alerts().baselineMinSamples(), c.alerts().resolvedRetention(), c.alerts().runbookBaseUrl());
        r.exportBaselinesOf(() -> engines.watches().stream().map(w -> w.config().name()).toList());
        return r;
    }

    /** Every transition goes to the webhook in force (a reload may replace it, never the evaluator's listener). */
    private void notifyWebhook(io.tailwatch.daemon.alerts.Transition t) {
        WebhookSink w = webhook;
        if (w != null) {
            w.accept(t);
        }
    }

    private void startOtlp(Config c) {
        if (OtlpExporter.enabled(c.otlp().settings(), env)) {
            // host: the machine as the agent's own alerts and the kit's scrape relabel name it, so alerts that a
            // Prometheus evaluates on pushed series group and route per host as on scraped ones (an
            // OTEL_RESOURCE_ATTRIBUTES host wins). Only on the push: a scrape gets host from its target.
            Map<String, String> pushed = new java.util.LinkedHashMap<>(resource);
            pushed.putIfAbsent("host", alertIdentity(c, 0).get("host"));
            otlp = OtlpExporter.start(c.otlp().settings(), hub, pushed);
            hub.addSink(otlp);
            LOG.info("OTLP export on: {}", withoutCredentials(otlp.endpoint()));
        }
    }

    private void stopOtlp() {
        if (otlp != null) {
            hub.removeSink(otlp);
            otlp.close();
            otlp = null;
        }
    }

    private void startWebhook(Config c) {
        String scheme = security.tls() ? "https://" : "http://";
        webhookExternalUrl = scheme + io.tailwatch.core.config.HostPort.format(c.server().host(), http.port());
        if (c.alerts().webhook().enabled()) {
            webhook = new WebhookSink(c.alerts().webhook(), webhookExternalUrl, alertIdentity(c, http.port()), clock);
        }
    }

    /** Alertmanager's v2 API, as Prometheus sends to it: every firing alert re-sent, resolved ones once. */
    private void startAlertmanagers(Config c) {
        if (c.alerts().alertmanagers().enabled()) {
            alertmanagers = new AlertmanagerSink(c.alerts().alertmanagers(), c.host().interval(), alertIdentity(c, http.port()),
                    webhookExternalUrl, clock);
        }
    }

    /** Whether the agent's listener or an engine's proxy (both guarded by the web config) is off loopback. */
    private boolean exposedListener() {
        Config c = config;
        return !io.tailwatch.daemon.api.ListenerSecurity.loopback(c.server().host())
                || c.engines().stream().anyMatch(e -> e.proxy() != null && e.proxy().exposed());
    }

    private LiveWebConfig webConfig(Config c) {
        if (c.server().webConfigFile() == null) {
            return null;
        }
        try {
            return LiveWebConfig.load(c.server().webConfigFile(), this::exposedListener);
        } catch (io.tailwatch.core.config.ConfigException e) {
            throw new WebConfigFailure(e.getMessage());
        }
    }

    /** Starts a listener for {@code c}'s server settings; the daemon's listener fields change only when it answers. */
    private ApiServer startHttp(Config c, LiveWebConfig web) {
        boolean token = c.server().authToken() != null;
        ApiServer.Health health = () -> {
            HostSampling h = host;
            Duration interval = config.host().interval();
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
        };
        ApiServer server = new ApiServer(prometheus, health, status, c.server().authToken(), c.server().allowedHosts(),
                routes, ResourceInfo::version);
        BasicAuthGuard g = null;
        if (web != null) {
            g = new BasicAuthGuard(web, token);
            server.withWebConfig(web, g);
        }
        try {
            server.withReadOnlyToken(io.tailwatch.daemon.ready.ReadinessMonitor.readOnlyToken(env),
                    io.tailwatch.daemon.ready.ReadinessMonitor::readyPath);
        } catch (IllegalArgumentException e) {
            throw new WebConfigFailure(e.getMessage());
        }
        server.start(c.server().host(), c.server().port());
        if (g != null) {
            g.publishTo(hub);
        } else if (guard != null) {
            hub.publish("http-auth", List.of());
        }
        guard = g;
        security = new ListenerSecurity(c.server().host(), server.port(), web, token);
        if (security.warning() != null) {
            LOG.warn("{}", security.warning());
        }
        return server;
    }

    /** A reload that changed nothing: the running config stays, whole (the reason is logged). */
    public static final class Kept extends RuntimeException {
        public Kept(String message) {
            super(message);
        }
    }

    /**
     * Applies {@code next} in place: what its settings do not change keeps running with its state (alert
     * instances and their {@code for} timers, probe windows, engines' reached state, baselines, the status
     * page's hour, the listener and its connections); a changed part is restarted alone, the listener only
     * when the server settings change. Throws {@link Kept} when the new listener cannot start while the
     * old one still serves (nothing changed then); any other exception leaves the daemon to be closed.
     *
     * @return what was restarted, for the log (empty: nothing)
     */
    public synchronized List<String> reconfigure(Config next) {
        Config prev = config;
        List<String> restarted = new ArrayList<>();
        if (!next.server().equals(prev.server())) {
            LiveWebConfig web;
            try {
                web = webConfig(next);
            } catch (WebConfigFailure e) {
                throw new Kept(e.getMessage());
            }
            // The port the listener is bound to (a config with port 0 got one at start) is given back first.
            boolean sameAddress = next.server().port() == http.port() && next.server().host().equals(prev.server().host());
            ApiServer old = http;
            if (sameAddress) {
                old.close();
                http = startHttp(next, web);
            } else {
                try {
                    http = startHttp(next, web);
                } catch (RuntimeException e) {
                    throw new Kept("the listener cannot start on "
                            + io.tailwatch.core.config.HostPort.format(next.server().host(), next.server().port())
                            + " (" + e.getMessage() + ")");
                }
                old.close();
            }
            restarted.add("listener");
            io.tailwatch.daemon.proxy.EngineProxies p = proxies;
            if (p != null) {
                p.rebind(hub, web).allowHosts(next.server().allowedHosts());
            }
        }
        config = next;
        hub.expireAfter(seriesExpiry(next));
        if (!next.host().equals(prev.host())) {
            HostSampling old = host;
            HostSampling h = newHost(next);
            if (!next.host().interval().equals(prev.host().interval())) {
                history = new StatusHistory(next.host().interval());
            }
            host = h;
            old.close();
            // The new process sampler knows the listed engines; the ones discovery added are followed again.
            AutoEngines found = auto;
            if (found != null) {
                for (String name : found.added()) {
                    io.tailwatch.daemon.engine.EngineWatch w = engines.watch(name);
                    if (w != null) {
                        followProcesses(w.config());
                    }
                }
            }
            h.start();
            restarted.add("host sampling");
        }
        if (!next.otlp().equals(prev.otlp())) {
            stopOtlp();
            startOtlp(next);
            restarted.add("otlp");
        }
        restarted.addAll(reconcileEngines(next));
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            // Kept where an engine's proxy settings are the same: its clients' connections stay open.
            p.reconfigure(next.engines());
        }
        String external = (security.tls() ? "https://" : "http://")
                + io.tailwatch.core.config.HostPort.format(next.server().host(), http.port());
        boolean webhookChanged = !next.alerts().webhook().equals(prev.alerts().webhook()) || !external.equals(webhookExternalUrl);
        if (webhookChanged) {
            WebhookSink old = webhook;
            webhook = null;
            if (old != null) {
                old.close();
            }
            startWebhook(next);
            restarted.add("webhook");
        }
        if (webhookChanged || !next.alerts().alertmanagers().equals(prev.alerts().alertmanagers())
                || !alertIdentity(next, http.port()).equals(alertIdentity(prev, http.port()))) {
            AlertmanagerSink old = alertmanagers;
            alertmanagers = null;
            if (old != null) {
                old.close();
            }
            startAlertmanagers(next);
            restarted.add("alertmanagers");
        }
        if (!next.rules().equals(prev.rules()) || !next.alerts().equals(prev.alerts())
                || !RuleExport.interactiveScenarios(next).equals(RuleExport.interactiveScenarios(prev))) {
            if (!java.util.Objects.equals(next.alerts().baselineFile(), prev.alerts().baselineFile())) {
                baselines = BaselineStore.open(next.alerts().baselineFile());
            }
            RuleEngine r = newRules(next);
            r.addListener(this::notifyWebhook);
            synchronized (evaluation) {
                r.adopt(rules, clock.instant());
                rules = r;
            }
            restarted.add("rules");
        }
        restart = io.tailwatch.daemon.api.EngineRestartRoute.of(next, env);
        AutoEngines a = auto;
        if (a != null && !restarted.contains("discovery")) {
            a.reloaded();
        }
        lastRestarted = List.copyOf(restarted);
        lastReload = clock.instant();
        reloads.incrementAndGet();
        return restarted;
    }

    /**
     * Keeps every watched engine the new config still has with the keys its watch is built from unchanged
     * (the others applied to it in place, {@link io.tailwatch.daemon.engine.EngineReload}), restarts the
     * ones whose such keys changed, drops the others, adds the new ones.
     */
    private List<String> reconcileEngines(Config next) {
        List<String> changes = new ArrayList<>();
        AutoEngines a = auto;
        java.util.Set<String> discovered = a == null ? java.util.Set.of() : a.added();
        for (io.tailwatch.daemon.engine.EngineWatch w : engines.watches()) {
            String name = w.config().name();
            io.tailwatch.core.config.EngineConfig was = w.config();
            io.tailwatch.core.config.EngineConfig now = next.engines().stream().filter(e -> e.name().equals(name))
                    .findFirst().orElse(null);
            boolean keep = discovered.contains(name) ? next.autoEngines()
                    : now != null && !io.tailwatch.daemon.engine.EngineReload.restartsWatch(was, now);
            if (keep && now != null && !now.equals(was)) {
                // Only keys the watch reads live or never reads changed: its state, windows and alerts stay.
                if (io.tailwatch.daemon.engine.EngineReload.restartsSignals(was, now)) {
                    signals.remove(name);
                    signals.add(now);
                    changes.add("engine " + name + " signals");
                }
                engines.retune(now);
            } else if (!keep) {
                engines.remove(name);
                signals.remove(name);
                changes.add("engine " + name + " dropped");
            }
        }
        for (io.tailwatch.core.config.EngineConfig e : next.engines()) {
            if (engines.watch(e.name()) == null && engines.add(e)) {
                signals.add(e);
                changes.add("engine " + e.name() + " (re)started");
            }
        }
        if (next.autoEngines() && a == null) {
            auto = newAuto(next);
            status.add(2, auto);
            auto.start();
            changes.add("discovery");
        } else if (!next.autoEngines() && a != null) {
            auto = null;
            status.remove(a);
            a.close();
            changes.add("discovery stopped");
        } else if (a != null && !next.discovery().equals(a.config())) {
            a.reconfigure(next.discovery());
            changes.add("discovery");
        }
        return changes;
}

    /**
     * The labels every alert is sent with, as a scrape of this agent would label its series: {@code job}
     * "tailwatch" (the kit's scrape job), {@code instance} HOST:PORT and {@code host} HOST, where HOST is
     * the first of {@code server.allowed_hosts} (the name Prometheus scrapes it by), else the listen
     * address unless it is a wildcard, else the host name; {@code alerts.labels} adds to or replaces them.
     */
    static Map<String, String> alertIdentity(Config config, int port) {
        String host;
        List<String> allowed = config.server().allowedHosts();
        String listen = config.server().host();
        if (allowed != null && !allowed.isEmpty()) {
            host = allowed.get(0);
        } else if (listen != null && !listen.isBlank() && !listen.equals("0.0.0.0") && !listen.equals("::")
                && !listen.equals("[::]")) {
            host = listen;
        } else {
            host = ResourceInfo.hostName();
        }
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("job", "tailwatch");
        m.put("instance", io.tailwatch.core.config.HostPort.format(host, port));
        m.put("host", host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host);
        m.putAll(config.alerts().labels());
        return m;
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

    /** The engines' metering proxies (none running when no engine has one). */
    public io.tailwatch.daemon.proxy.EngineProxies proxies() {
        return proxies;
    }

    private void closeQuietly() {
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            p.close();
        }
        if (http != null) {
            http.close();
        }
        WebhookSink w = webhook;
        AlertmanagerSink am = alertmanagers;
        AutoEngines a = auto;
        for (AutoCloseable c : new AutoCloseable[] {w, am, a}) {
            try {
                if (c != null) {
                    c.close();
                }
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
