package io.tailwatch.daemon;

import io.javalin.config.RoutesConfig;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
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
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.daemon.status.StatusHistory;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.PrometheusExporter;
import java.time.Clock;
import java.time.Duration;
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
 *
 * <p>Its parts, beside it in this package: {@link StatusParts} (the named parts of /api/v1/status it wires),
 * {@link ListenerHealth} (the listener's health answer), {@link AlertDelivery} (webhook, Alertmanager and the
 * labels alerts carry), {@link OtlpPush} (the OTLP push), {@link ReloadPlan} (what a reload restarts) and
 * {@link EngineReconcile} (a reload's pass over the watched engines). What runs after each host sample is
 * {@code newHost}'s listeners.
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
    /** The OTLP push, when it is on. */
    private final OtlpPush otlp;
    private ApiServer http;
    private volatile BasicAuthGuard guard;
    private volatile ListenerSecurity security;
    private EngineSignalMonitor signals;
    private volatile BaselineStore baselines;
    private volatile RuleEngine rules;
    /** The webhook and Alertmanager sinks in force; the evaluator's one listener. */
    private final AlertDelivery delivery = new AlertDelivery(clock);
    private EngineMonitor engines;
    private volatile AutoEngines auto;
    private volatile StatusHistory history;
    private volatile io.tailwatch.daemon.api.EngineRestartRoute restart;
    /** Each engine's readiness verdict for routers (docs/routing.md). */
    private io.tailwatch.daemon.ready.ReadinessMonitor readiness;
    private final StatusParts.Reloads reloads = new StatusParts.Reloads();
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
        this.otlp = new OtlpPush(hub, env);
        hub.genAiConventions(io.tailwatch.metrics.GenAiConventions.from(env.get(io.tailwatch.metrics.GenAiConventions.VARIABLE)));
    }

    /**
     * A histogram series expires after two probe windows of the longest scenario (configured, or the
     * default one given to a discovered engine), and never sooner than the hub's default.
     */
    static Duration seriesExpiry(Config config) {
        Duration longest = io.tailwatch.core.config.WindowRequirements.of(config.rules(), config.alerts())
                .defaultWindow(Duration.ofSeconds(60));
        for (io.tailwatch.core.config.EngineConfig e : config.engines()) {
            for (io.tailwatch.core.config.EngineConfig.Scenario s : e.scenarios()) {
                if (s.window().compareTo(longest) > 0) {
                    longest = s.window();
                }
            }
        }
        Duration two = longest.multipliedBy(2);
        return two.compareTo(MetricHub.Limits.DEFAULT.expiry()) > 0 ? two : MetricHub.Limits.DEFAULT.expiry();
    }

    public Daemon start() {
        // One agent = one data directory (per user) and one listen address, as configured (not the bound port).
        String agentKey = io.tailwatch.core.config.DataDir.of(env) + "|"
                + io.tailwatch.core.config.HostPort.format(config.server().host(), config.server().port());
        resource = ResourceInfo.withEnvironment(ResourceInfo.detect(agentKey), env);
        prometheus = new PrometheusExporter(hub, resource);
        hub.publish("build", List.of(io.tailwatch.metrics.SelfMetrics.buildInfo(ResourceInfo.version())));
        otlp.start(config, resource);
        host = newHost(config);
        NativeSelfCheck.Report checked = selfCheck;
        if (!checked.results().isEmpty()) {
            status.add(new StatusParts.SelfCheck(checked));
        }
        status.add(new StatusParts.Host(() -> host));
        engines = new EngineMonitor(config.engines(), hub, () -> host.latest(), clock);
        signals = new EngineSignalMonitor(config.engines(), hub, clock);
        status.add(new StatusParts.Engines(engines.status(), signals, () -> readiness));
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
        status.add(new AlertsStatus(() -> rules, delivery::webhook, delivery::alertmanagers));
        routes.add(app -> app.get("/api/v1/alerts", ctx -> ApiServer.json(ctx, Map.of("alerts", rules.alerts()))));
        status.add(new StatusParts.Thresholds(() -> config));
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
        status.add(new StatusParts.Listener(() -> security));
        status.add(reloads);
        delivery.start(config, http.port(), security.tls());
        rules.addListener(delivery);
        // The proxies after the API (a busy proxy port is logged, not fatal) and before the loops.
        proxies = new io.tailwatch.daemon.proxy.EngineProxies(hub, web).allowHosts(config.server().allowedHosts())
                .servedModels(name -> {
                    io.tailwatch.daemon.engine.EngineWatch w = engines.watch(name);
                    return w == null ? null : w.servedModel();
                });
        proxies.reconfigure(config.engines());
        status.add(proxies);
        status.add(new StatusParts.Energy(energy));
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
        h.addListener(this::evaluateRules);
        h.addListener(snap -> history.record(snap.at(), HostStatus.of(snap, h.previousOf(snap)), rules.signals()));
        h.addListener(this::publishTraffic);
        h.addListener(snap -> {
            BasicAuthGuard g = guard;
            if (g != null) {
                g.publishTo(hub);
            }
        });
        return h;
    }

    /** After each host sample: the rules evaluate and the alerts in force go to Alertmanager. */
    private void evaluateRules(HostSnapshot snap) {
        // The webhook counters go in just before the rules read them (WebhookNotificationsDropped).
        WebhookSink w = delivery.webhook();
        if (w != null) {
            hub.publish("alerts/webhook", io.tailwatch.daemon.alerts.WebhookMetrics.points(w.stats()));
        }
        synchronized (evaluation) {
            rules.evaluate(snap.at());
            AlertmanagerSink am = delivery.alertmanagers();
            if (am != null) {
                am.update(rules.alerts());
            }
        }
    }

    /** After each host sample: the proxies' figures, the energy per output token, the rejected inputs. */
    private void publishTraffic(HostSnapshot snap) {
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            p.publish();
        }
        energy.sample(System.nanoTime(), io.tailwatch.core.host.HostPower.of(snap), outputTokens());
        hub.publish("energy", energy.points());
        hub.publish("input-rejected", io.tailwatch.core.probe.InputRange.points());
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
        ApiServer.Health health = new ListenerHealth(() -> host, () -> config.host().interval(), clock);
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
        ReloadPlan plan = ReloadPlan.of(prev, next, http.port());
        List<String> restarted = new ArrayList<>();
        if (plan.listener()) {
            restartListener(next, plan.sameAddress());
            restarted.add("listener");
        }
        config = next;
        hub.expireAfter(seriesExpiry(next));
        if (plan.host()) {
            restartHost(next, plan.history());
            restarted.add("host sampling");
        }
        if (plan.otlp()) {
            otlp.stop();
            otlp.start(next, resource);
            restarted.add("otlp");
        }
        AutoEngines a = auto;
        restarted.addAll(EngineReconcile.apply(engines, signals, a == null ? java.util.Set.of() : a.added(), next));
        restarted.addAll(reconcileDiscovery(next));
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            // Kept where an engine's proxy settings are the same: its clients' connections stay open.
            p.reconfigure(next.engines());
        }
        delivery.reload(prev, next, http.port(), security.tls(), restarted);
        if (plan.rules()) {
            if (plan.baselines()) {
                baselines = BaselineStore.open(next.alerts().baselineFile());
            }
            RuleEngine r = newRules(next);
            r.addListener(delivery);
            synchronized (evaluation) {
                r.adopt(rules, clock.instant());
                rules = r;
            }
            restarted.add("rules");
        }
        restart = io.tailwatch.daemon.api.EngineRestartRoute.of(next, env);
        AutoEngines found = auto;
        if (found != null && !restarted.contains("discovery")) {
            found.reloaded();
        }
        reloads.record(restarted, clock.instant());
        return restarted;
    }

    /**
     * A new listener for {@code next}'s server settings; on {@code sameAddress} the running one gives its port
     * back first, otherwise it serves on until the new one answers (and stays, {@link Kept}, if it cannot).
     */
    private void restartListener(Config next, boolean sameAddress) {
        LiveWebConfig web;
        try {
            web = webConfig(next);
        } catch (WebConfigFailure e) {
            throw new Kept(e.getMessage());
        }
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
        io.tailwatch.daemon.proxy.EngineProxies p = proxies;
        if (p != null) {
            p.rebind(hub, web).allowHosts(next.server().allowedHosts());
        }
    }

    /** A new host loop for {@code next}'s host settings (and a new history when the interval changed). */
    private void restartHost(Config next, boolean newHistory) {
        HostSampling old = host;
        HostSampling h = newHost(next);
        if (newHistory) {
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
    }

    /** Starts, stops or reconfigures discovery ({@code engines: auto}) as {@code next} says. */
    private List<String> reconcileDiscovery(Config next) {
        AutoEngines a = auto;
        if (next.autoEngines() && a == null) {
            auto = newAuto(next);
            status.add(2, auto);
            auto.start();
            return List.of("discovery");
        } else if (!next.autoEngines() && a != null) {
            auto = null;
            status.remove(a);
            a.close();
            return List.of("discovery stopped");
        } else if (a != null && !next.discovery().equals(a.config())) {
            a.reconfigure(next.discovery());
            return List.of("discovery");
        }
        return List.of();
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
        WebhookSink w = delivery.webhook();
        AlertmanagerSink am = delivery.alertmanagers();
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
        otlp.close();
    }
}
