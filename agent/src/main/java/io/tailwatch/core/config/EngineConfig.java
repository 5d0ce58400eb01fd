package io.tailwatch.core.config;

import io.tailwatch.core.logging.Redact;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.units.Units;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One local LLM engine to watch. {@code apiKey} is a secret: never logged, never exported
 * (toString hides it).
 *
 * @param processNames executables (or python module names such as mlx_lm) that identify the
 *                     engine's processes when no process listens on the URL's port
 * @param launchdLabel launchd label of the service running the engine, for `engine restart`
 * @param api            an {@link EngineApi} name
 * @param signals        where the engine's own queue, running-request and KV-cache figures are read
 * @param connectTimeout the deadline to connect to the engine, for every request to it (probes of every
 *                       scenario, health checks, signal reads)
 * @param proxy          the engine's metering proxy, or null (off: the default)
 * @param loadingLimit   how long the engine may report loading (health 503) before it is down
 */
public record EngineConfig(String name, String api, URI url, String model, String apiKey, Duration healthInterval,
                           Duration healthTimeout, boolean skipWhenPressureCritical, List<Scenario> scenarios,
                           List<String> processNames, String launchdLabel, Signals signals, Duration connectTimeout,
                           ProxyConfig proxy, Duration loadingLimit) {

    public static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,62}");
    /** Health-check interval when the config sets none. */
    public static final Duration DEFAULT_HEALTH_INTERVAL = Duration.ofSeconds(15);
    /** Health-check deadline when the config sets none (capped at the health interval). */
    public static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(5);
    /** Connect deadline when the config sets none. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /**
     * How long an engine may report that it is loading (an OpenAI-compatible server answering /health 503)
     * before it counts as down, when the config sets no {@code health.loading_limit}.
     */
    public static final Duration DEFAULT_LOADING_LIMIT = Duration.ofMinutes(10);
    static final Duration MIN_LOADING_LIMIT = Duration.ofSeconds(10);
    static final Duration MAX_LOADING_LIMIT = Duration.ofHours(6);

    /** Without a proxy, with the default loading limit. */
    public EngineConfig(String name, String api, URI url, String model, String apiKey, Duration healthInterval,
                        Duration healthTimeout, boolean skipWhenPressureCritical, List<Scenario> scenarios,
                        List<String> processNames, String launchdLabel, Signals signals, Duration connectTimeout) {
        this(name, api, url, model, apiKey, healthInterval, healthTimeout, skipWhenPressureCritical, scenarios,
                processNames, launchdLabel, signals, connectTimeout, null, DEFAULT_LOADING_LIMIT);
    }

    /** With the default connect timeout. */
    public EngineConfig(String name, String api, URI url, String model, String apiKey, Duration healthInterval,
                        Duration healthTimeout, boolean skipWhenPressureCritical, List<Scenario> scenarios,
                        List<String> processNames, String launchdLabel, Signals signals) {
        this(name, api, url, model, apiKey, healthInterval, healthTimeout, skipWhenPressureCritical, scenarios,
                processNames, launchdLabel, signals, DEFAULT_CONNECT_TIMEOUT);
    }

    /** Without a signals section: the defaults (auto-detect every 15 s). */
    public EngineConfig(String name, String api, URI url, String model, String apiKey, Duration healthInterval,
                        Duration healthTimeout, boolean skipWhenPressureCritical, List<Scenario> scenarios,
                        List<String> processNames, String launchdLabel) {
        this(name, api, url, model, apiKey, healthInterval, healthTimeout, skipWhenPressureCritical, scenarios,
                processNames, launchdLabel, Signals.DEFAULT);
    }

    public EngineConfig {
        signals = signals == null ? Signals.DEFAULT : signals;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        loadingLimit = loadingLimit == null ? DEFAULT_LOADING_LIMIT : loadingLimit;
    }

    /** A copy named {@code newName}, everything else the same. */
    public EngineConfig withName(String newName) {
        return new EngineConfig(newName, api, url, model, apiKey, healthInterval, healthTimeout, skipWhenPressureCritical,
                scenarios, processNames, launchdLabel, signals, connectTimeout, proxy, loadingLimit);
    }

    /**
     * The engine-side signals section.
     *
     * @param source           where the figures come from ({@link SignalSourceSetting}: auto, none, or one pinned source)
     * @param healthQueueField dotted path of the queue length in the /healthz or /health JSON (e.g. queue_size)
     * @param interval         how often the engine's endpoints are read
     */
    public record Signals(SignalSourceSetting source, String healthQueueField, Duration interval, Integer batchSize) {
        public static final Pattern FIELD = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
        public static final Signals DEFAULT = new Signals(SignalSourceSetting.AUTO, "queue_size", Duration.ofSeconds(15));
        /** The largest batch size taken (vllm-mlx's default max_num_seqs is 256; mlx_lm's decode concurrency 32). */
        public static final int MAX_BATCH_SIZE = 4096;

        /** Without a configured batch size. */
        public Signals(SignalSourceSetting source, String healthQueueField, Duration interval) {
            this(source, healthQueueField, interval, null);
        }

        static Signals read(Section s) {
            String name = s.oneOf("source", DEFAULT.source().configName(), SignalSourceSetting.names().toArray(new String[0]));
            SignalSourceSetting source = name == null ? DEFAULT.source() : SignalSourceSetting.of(name);
            String field = s.string("health_queue_field", DEFAULT.healthQueueField());
            if (field != null && !FIELD.matcher(field).matches()) {
                s.problem("health_queue_field", "must be a dotted path of JSON keys or list indexes, e.g. queue_size or "
                        + "scheduler.queue.0");
                field = DEFAULT.healthQueueField();
            }
            Duration interval = s.duration("interval", DEFAULT.interval(), Duration.ofSeconds(1), Duration.ofHours(1));
            // How many requests the engine generates at once (mlx_lm.server --decode-concurrency): with it, the proxy's
            // requests in flight past it count as waiting when the engine reports no queue of its own.
            Integer batch = s.has("batch_size") ? s.integer("batch_size", 1, 1, MAX_BATCH_SIZE) : null;
            s.finish();
            return new Signals(source, field, interval, batch);
        }
    }

    /**
     * One synthetic probe shape. {@code interactive} scenarios are held to the TTFT SLO; {@code window}
     * is the span of the rolling window the rules read (long enough for their minimum probe counts).
     */
    public record Scenario(String name, Duration interval, int promptTokens, int maxTokens, double temperature,
                           Duration firstTokenTimeout, Duration totalTimeout, boolean interactive, Duration window) {

        /** Without a window: the default for the interval and the built-in rules. */
        public Scenario(String name, Duration interval, int promptTokens, int maxTokens, double temperature,
                        Duration firstTokenTimeout, Duration totalTimeout, boolean interactive) {
            this(name, interval, promptTokens, maxTokens, temperature, firstTokenTimeout, totalTimeout, interactive,
                    WindowRequirements.defaults().defaultWindow(interval));
        }
    }

    public int port() {
        int p = url.getPort();
        if (p > 0) {
            return p;
        }
        return "https".equals(url.getScheme()) ? 443 : 80;
    }

    @Override
    public String toString() {
        return "EngineConfig[name=" + name + ", api=" + api + ", url=" + Redact.url(url) + ", model=" + model
                + ", apiKey=" + (apiKey == null ? "none" : "set") + ", connectTimeout=" + Units.format(connectTimeout)
                + ", scenarios=" + scenarios + ", signals=" + signals + (proxy == null ? "" : ", proxy=" + proxy.listen()) + "]";
    }

    /**
     * The largest configuration the agent runs within its 24 MiB heap and a few percent of one core
     * (docs/reliability.md): every engine costs a health check per interval, its inventory and signal
     * series; every scenario a probe per interval and its histogram and window series.
     */
    public static final int MAX_ENGINES = 32;
    public static final int MAX_SCENARIOS_PER_ENGINE = 8;
    public static final int MAX_SCENARIOS = 64;

    /** {@code engines: auto} (a scalar instead of a list); any other scalar is a problem named at its line. */
    static boolean isAuto(Section root) {
        if (!(root.node() instanceof ConfigNode.MapNode m) || m.entries().get("engines") == null
                || !(m.entries().get("engines").value() instanceof ConfigNode.Scalar)) {
            return false;
        }
        String v = root.string("engines", null);
        if ("auto".equals(v)) {
            return true;
        }
        root.problem("engines", "must be a list of engines, or auto (find them on this host's loopback ports), got '" + v + "'");
        return true;
    }

    static List<EngineConfig> readAll(Section root) {
        return readAll(root, WindowRequirements.defaults());
    }

    static List<EngineConfig> readAll(Section root, WindowRequirements windows) {
        return readAll(root, windows, "server.web_config_file is not set");
    }

    /**
     * An endpoint as the network sees it: a loopback name or IP literal resolved to its address (never a DNS
     * lookup for any other name, which is compared as written), and the port.
     */
    static String endpoint(String host, int port) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            h = "127.0.0.1";
        } else if (h.indexOf(':') >= 0 || h.chars().allMatch(c -> Character.isDigit(c) || c == '.')) {
            try {
                h = java.net.InetAddress.getByName(h).getHostAddress();
            } catch (java.net.UnknownHostException e) {
                // compared as written
            }
        }
        return h.toLowerCase(java.util.Locale.ROOT) + " " + port;
    }

    static String endpoint(URI url) {
        int port = url.getPort() >= 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
        return endpoint(url.getHost() == null ? "" : url.getHost(), port);
    }

    /**
     * A proxy that would forward to itself or to another proxy of this agent (its engine's URL, or another
     * engine's, is a proxy's own address however it is spelt), or two proxies on one address spelt two ways.
     */
    private static void loops(List<Section> sections, List<EngineConfig> engines) {
        if (sections.size() != engines.size()) {
            return; // an engine that did not read has its own problem
        }
        java.util.Map<String, Integer> proxies = new java.util.HashMap<>();
        for (int i = 0; i < engines.size(); i++) {
            ProxyConfig p = engines.get(i).proxy();
            if (p != null && p.port() != 0) {
                Integer other = proxies.putIfAbsent(endpoint(p.host(), p.port()), i);
                if (other != null && !engines.get(other).proxy().listen().equals(p.listen())) {
                    sections.get(i).section("proxy").problem("listen", p.listen() + " is the address of engines["
                            + other + "].proxy.listen (" + engines.get(other).proxy().listen() + ") spelt another way");
                }
            }
        }
        for (int j = 0; j < engines.size(); j++) {
            Integer i = proxies.get(endpoint(engines.get(j).url()));
            if (i != null) {
                sections.get(j).problem("url", engines.get(j).url() + " is the address of engines[" + i
                        + "].proxy.listen (" + engines.get(i).proxy().listen() + "): the proxy would forward to "
                        + (i == j ? "itself" : "a proxy of this agent") + "; give the engine's own address");
            }
        }
    }

    /** {@code exposedProblem}: see {@link ProxyConfig#read}. */
    static List<EngineConfig> readAll(Section root, WindowRequirements windows, String exposedProblem) {
        List<Section> list = root.sections("engines");
        if (list == null) {
            return List.of();
        }
        if (list.size() > MAX_ENGINES) {
            root.problem("engines", list.size() + " engines, more than the " + MAX_ENGINES + " the agent supports");
        }
        List<EngineConfig> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        java.util.Map<String, String> proxyPorts = new java.util.HashMap<>();
        for (Section s : list) {
            EngineConfig e = read(s, windows, exposedProblem);
            if (e != null) {
                if (!names.add(e.name())) {
                    s.problem("name", "duplicate engine name '" + e.name() + "'");
                }
                if (e.proxy() != null && e.proxy().port() != 0) {
                    String other = proxyPorts.putIfAbsent(e.proxy().listen(), e.name());
                    if (other != null) {
                        s.section("proxy").problem("listen", "engine '" + other + "' has a proxy on "
                                + e.proxy().listen() + " already");
                    }
                }
                out.add(e);
            }
        }
        loops(list, out);
        int scenarios = out.stream().mapToInt(e -> e.scenarios().size()).sum();
        if (scenarios > MAX_SCENARIOS) {
            root.problem("engines", scenarios + " scenarios over all engines, more than the " + MAX_SCENARIOS
                    + " the agent supports");
        }
        return out;
    }

    static EngineConfig read(Section s) {
        return read(s, WindowRequirements.defaults());
    }

    static EngineConfig read(Section s, WindowRequirements windows) {
        return read(s, windows, "server.web_config_file is not set");
    }

    static EngineConfig read(Section s, WindowRequirements windows, String exposedProblem) {
        String name = s.string("name", null);
        if (name == null) {
            s.problem(null, "an engine needs a name");
        } else if (!NAME.matcher(name).matches()) {
            s.problem("name", "must match " + NAME.pattern() + " (lower case, digits, _ . -)");
        }
        String api = s.oneOf("api", null, EngineApi.names().toArray(new String[0]));
        if (api == null && !s.has("api")) {
            s.problem(null, "an engine needs api: " + EngineApi.choices());
        }
        URI url = s.scalar("url", null, "an http:// or https:// URL", t -> {
            URI u = URI.create(t);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                throw new IllegalArgumentException("must be http://HOST[:PORT] or https://...");
            }
            return u;
        });
        if (url == null && !s.has("url")) {
            s.problem(null, "an engine needs a url");
        }
        String model = s.string("model", null);
        String apiKey = s.string("api_key", null);
        Section health = s.section("health");
        Duration hInterval = health.duration("interval", DEFAULT_HEALTH_INTERVAL, Duration.ofSeconds(1), Duration.ofHours(1));
        // As Prometheus' scrape_timeout: unset, it is 5 s or the interval, whichever is shorter; only an
        // explicit timeout longer than the interval is an error.
        Duration hFallback = hInterval.compareTo(DEFAULT_HEALTH_TIMEOUT) < 0 ? hInterval : DEFAULT_HEALTH_TIMEOUT;
        Duration hTimeout = health.duration("timeout", hFallback, Duration.ofMillis(100), Duration.ofMinutes(1));
        if (hTimeout.compareTo(hInterval) > 0) {
            health.problem("timeout", "must not be longer than health.interval (" + Units.format(hInterval) + ")");
        }
        // Unset: the default, or the health interval when that is longer (one check's worth of loading).
        boolean loadingSet = health.has("loading_limit");
        Duration loadingLimit = health.duration("loading_limit", DEFAULT_LOADING_LIMIT, MIN_LOADING_LIMIT, MAX_LOADING_LIMIT);
        if (!loadingSet && loadingLimit.compareTo(hInterval) < 0) {
            loadingLimit = hInterval;
        } else if (loadingLimit.compareTo(hInterval) < 0) {
            health.problem("loading_limit", "must not be shorter than health.interval (" + Units.format(hInterval) + ")");
        }
        health.finish();
        boolean skip = s.bool("skip_when_pressure_critical", true);
        Duration connect = s.has("connect_timeout")
                ? s.duration("connect_timeout", DEFAULT_CONNECT_TIMEOUT, MIN_CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT) : null;
        List<Scenario> scenarios = new ArrayList<>();
        List<LegacyConnect> legacy = new ArrayList<>();
        List<Section> sc = s.sections("scenarios");
        if (sc == null) {
            scenarios.add(new Scenario("interactive", Duration.ofSeconds(60), 64, 32, 0.0,
                    Duration.ofSeconds(30), Duration.ofSeconds(50), true, windows.defaultWindow(Duration.ofSeconds(60))));
        } else {
            if (sc.size() > MAX_SCENARIOS_PER_ENGINE) {
                s.problem("scenarios", sc.size() + " scenarios, more than the " + MAX_SCENARIOS_PER_ENGINE
                        + " one engine may have");
            }
            Set<String> names = new HashSet<>();
            for (Section x : sc) {
                Scenario scenario = scenario(x, windows, legacy);
                if (!names.add(scenario.name())) {
                    x.problem("name", "duplicate scenario name '" + scenario.name() + "'");
                }
                scenarios.add(scenario);
            }
        }
        Section process = s.section("process");
        List<String> processNames = process.strings("names", List.of());
        process.finish();
        String label = s.string("launchd_label", null);
        Signals signals = Signals.read(s.section("signals"));
        ProxyConfig proxy = s.has("proxy") ? ProxyConfig.read(s.section("proxy"), exposedProblem) : null;
        connect = connectTimeout(s, connect, legacy, scenarios);
        s.finish();
        if (name == null || api == null || url == null) {
            return null;
        }
        return new EngineConfig(name, api, url, model, apiKey, hInterval, hTimeout, skip, List.copyOf(scenarios),
                List.copyOf(processNames), label, signals, connect, proxy, loadingLimit);
    }

    static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(10);
    static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(5);

    /** A scenario's {@code timeouts.connect} (the key from before the engine had its own {@code connect_timeout}). */
    private record LegacyConnect(Section timeouts, String scenario, Duration value) {
    }

    /**
     * The engine's connect deadline. One per engine: every request to the engine uses it. A scenario's
     * {@code timeouts.connect} is still read when every scenario that sets it agrees (and agrees with
     * the engine's {@code connect_timeout} when that is set too); scenarios that differ are an error
     * naming the key and where it moved, never a value silently dropped.
     */
    private static Duration connectTimeout(Section engine, Duration connect, List<LegacyConnect> legacy,
                                           List<Scenario> scenarios) {
        Duration chosen = connect;
        String from = "connect_timeout";
        for (LegacyConnect l : legacy) {
            if (chosen == null) {
                chosen = l.value();
                from = "scenario '" + l.scenario() + "' timeouts.connect";
            } else if (!chosen.equals(l.value())) {
                l.timeouts().problem("connect", "the connect timeout belongs to the engine now (one per engine, for "
                        + "every request to it): set connect_timeout on the engine and remove timeouts.connect from its "
                        + "scenarios; this scenario says " + Units.format(l.value()) + ", " + from + " says "
                        + Units.format(chosen));
            }
        }
        if (chosen == null) {
            return DEFAULT_CONNECT_TIMEOUT;
        }
        for (Scenario x : scenarios) {
            if (chosen.compareTo(x.totalTimeout()) > 0) {
                String message = "must not be longer than scenario '" + x.name() + "' timeouts.total ("
                        + Units.format(x.totalTimeout()) + ")";
                if (connect != null) {
                    engine.problem("connect_timeout", message);
                } else {
                    legacy.get(0).timeouts().problem("connect", message);
                }
                break;
            }
        }
        return chosen;
    }

    private static Scenario scenario(Section s, WindowRequirements windows, List<LegacyConnect> legacy) {
        String name = s.string("name", "interactive");
        if (!NAME.matcher(name).matches()) {
            s.problem("name", "must match " + NAME.pattern());
        }
        Duration interval = s.duration("interval", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(24));
        int promptTokens = s.integer("prompt_tokens", 64, 1, 200_000);
        int maxTokens = s.integer("max_tokens", 32, 1, 100_000);
        double temperature = s.number("temperature", 0.0, 0.0, 2.0);
        Section t = s.section("timeouts");
        if (t.has("connect")) {
            legacy.add(new LegacyConnect(t, name, t.duration("connect", DEFAULT_CONNECT_TIMEOUT, MIN_CONNECT_TIMEOUT,
                    MAX_CONNECT_TIMEOUT)));
        }
        Duration first = t.duration("first_token", Duration.ofSeconds(30), Duration.ofMillis(10), Duration.ofHours(1));
        Duration total = t.duration("total", Duration.ofSeconds(50), Duration.ofMillis(10), Duration.ofHours(1));
        if (total.compareTo(interval) >= 0) {
            t.problem("total", "the total deadline (" + Units.format(total) + ") must be shorter than the scenario interval ("
                    + Units.format(interval) + ")");
        }
        if (first.compareTo(total) > 0) {
            t.problem("first_token", "must not be longer than timeouts.total (" + Units.format(total) + ")");
        }
        t.finish();
        boolean interactive = s.bool("interactive", name.equals("interactive"));
        Duration window;
        if (s.has("window")) {
            window = s.duration("window", windows.defaultWindow(interval), Duration.ofMinutes(1), Duration.ofDays(30));
            String problem = windows.check(window, interval);
            if (problem != null) {
                s.problem("window", problem);
            }
        } else {
            window = windows.defaultWindow(interval);
        }
        s.finish();
        return new Scenario(name, interval, promptTokens, maxTokens, temperature, first, total, interactive, window);
    }
}
