package io.tailwatch.daemon.engine;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.kv.KvCacheMath;
import io.tailwatch.core.kv.KvPlan;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.LoadedModel;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.ModelMemoryKind;
import io.tailwatch.metrics.AttrValues.Operation;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.AttrValues.SkipReason;
import io.tailwatch.metrics.AttrValues.TokenModality;
import io.tailwatch.metrics.AttrValues.TokenType;
import io.tailwatch.metrics.Attrs;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.GenAiConventions;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the agent knows about one configured engine: its client, the last health check, and
 * per scenario the last probe and the rolling windows (one per model probed, bounded). Publishes
 * two producers to the hub, {@code engine/NAME} (health, inventory, KV arithmetic) and
 * {@code probe/NAME} (probe gauges and windows); histograms are recorded per probe.
 */
public final class EngineWatch {
    private static final Logger LOG = LoggerFactory.getLogger(EngineWatch.class);
    /** KV caches are f16 unless the engine is told otherwise (OLLAMA_KV_CACHE_TYPE, MLX kv bits). */
    static final double KV_BYTES_PER_ELEMENT = 2.0;
    static final int MAX_MODELS_PER_SCENARIO = 8;
    static final int CRITICAL_PRESSURE = 2;

    private volatile EngineConfig config;
    private final EngineClient client;
    private final MetricHub hub;
    private final Supplier<HostSnapshot> host;
    private final Clock clock;
    private final int windowMax;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final Map<SkipReason, AtomicLong> skipped = new ConcurrentHashMap<>();
    /** Output tokens of the probes that told their count (the energy attribution reads this). */
    private final AtomicLong probeOutputTokens = new AtomicLong();
    private final Map<String, ScenarioState> scenarios = new LinkedHashMap<>();
    private volatile EngineHealth health;
    /** Whether the engine has answered a health check since the agent started (EngineDown needs that). */
    private volatile boolean reached;
    private volatile boolean neverReachedLogged;
    /** Format and quantization per model name, asked once per model (bounded like the inventory). */
    private final Map<String, io.tailwatch.core.probe.ModelFacts> modelFacts = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, io.tailwatch.core.probe.ModelFacts> e) {
                    return size() > EngineHealth.MAX_MODELS;
                }
            });
    /** Models whose facts are asked per health check at most, so a long inventory does not stretch one check. */
    static final int FACTS_PER_CHECK = 2;
    /** Whether the engine refused the agent's key (or its lack of one) at the last health check. */
    private volatile boolean keyRefusedLogged;
    /** When the engine began to report loading without a break; null while it does not. */
    private volatile Instant loadingSince;
    /** No longer watched (a reload dropped it): nothing more is published. */
    private volatile boolean retired;
    /**
     * Whether the engine has answered a probe since it came up (false again after it was down). An mlx_lm
     * server answers /health ok while it loads its model; until its first answer it is starting, and its
     * probes (time-outs, and the first answer after them, which holds the load) are not recorded.
     */
    private volatile boolean answeredSinceUp;
    private volatile boolean failedWhileStarting;
    /** When a probe first timed out before the engine's first answer; the start is bounded by health.loading_limit. */
    private volatile Instant startingSince;
    /** The model string the proxied traffic to this engine uses most (null: no traffic seen); set by the daemon. */
    private volatile Supplier<String> trafficModel;
    /**
     * The name of the model a local mlx_lm server was started with ({@code --model}), read from its command line;
     * null when it cannot be told. Read at most once a minute, and again after the engine was down.
     */
    private volatile String servedModel;
    private volatile Instant servedModelReadAt;
    static final Duration SERVED_MODEL_REREAD = Duration.ofMinutes(1);

    /** Per-scenario state. Windows are keyed by model, least recently probed evicted first. */
    final class ScenarioState {
        final EngineConfig.Scenario config;
        volatile ProbeResult last;
        volatile Double lastDecodeRate;
        /** The engine's own figures of the last successful probe (null: it reported none). */
        volatile Double lastEngineDecodeRate;
        volatile Double lastEngineTtft;
        final Map<String, ProbeWindow> windows = new LinkedHashMap<>(4, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ProbeWindow> e) {
                return size() > MAX_MODELS_PER_SCENARIO;
            }
        };

        /** Usage-counter totals (semantic-conventions-genai names): attributes and sum by series key. */
        final Map<String, Map<String, String>> tokenTotals = new LinkedHashMap<>();
        final Map<String, Double> tokenSums = new java.util.HashMap<>();

        ScenarioState(EngineConfig.Scenario config) {
            this.config = config;
        }
    }

    /** Each scenario's rolling window spans its configured {@code window}, holding at most {@code windowMax} probes. */
    public EngineWatch(EngineConfig config, MetricHub hub, Supplier<HostSnapshot> host, Clock clock, int windowMax) {
        this.config = config;
        this.client = EngineClients.create(config.api(), config.url(), config.apiKey(), config.connectTimeout());
        this.hub = hub;
        this.host = host;
        this.clock = clock;
        this.windowMax = windowMax;
        for (EngineConfig.Scenario s : config.scenarios()) {
            scenarios.put(s.name(), new ScenarioState(s));
        }
    }

    /** Output tokens the probes of this engine generated so far (those whose answer told the count). */
    public long probeOutputTokens() {
        return probeOutputTokens.get();
    }

    public EngineConfig config() {
        return config;
    }

    public EngineClient client() {
        return client;
    }

    public EngineHealth health() {
        return health;
    }

    /** True once the engine has answered a health check since the agent started. */
    public boolean reached() {
        return reached;
    }

    /**
     * up, down, loading, needs_key (it answers HTTP 401/403: it needs an API key, or another one),
     * never_reachable (configured but never answered), or null before the first check.
     */
    public String state() {
        EngineHealth h = health;
        if (h == null) {
            return null;
        }
        if (h.needsKey()) {
            return "needs_key";
        }
        if (!reached) {
            return "never_reachable";
        }
        return h.loading() || seenStarting(h) ? "loading" : h.up() ? "up" : "down";
    }

    /**
     * The latest probe of an interactive scenario started within two of its intervals before {@code now}, or
     * null (the readiness verdict's TTFT).
     */
    public ProbeResult recentInteractiveProbe(Instant now) {
        ProbeResult best = null;
        for (ScenarioState s : scenarios.values()) {
            ProbeResult r = s.last;
            if (s.config.interactive() && r != null && r.startedAt().plus(s.config.interval().multipliedBy(2)).isAfter(now)
                    && (best == null || r.startedAt().isAfter(best.startedAt()))) {
                best = r;
            }
        }
        return best;
    }

    List<ScenarioState> scenarioStates() {
        return List.copyOf(scenarios.values());
    }

    Map<String, Long> skippedCounts() {
        Map<String, Long> m = new TreeMap<>();
        skipped.forEach((k, v) -> m.put(k.value(), v.get()));
        return m;
    }

    /** Runs one health and inventory check and publishes the engine's series. */
    public EngineHealth checkHealth() {
        EngineHealth h = pastLoadingLimit(client.health(config.healthTimeout()));
        EngineHealth before = health;
        health = h;
        if (!h.up() && !h.needsKey()) {
            answeredSinceUp = false; // down: it restarts, and loads again
            servedModelReadAt = null; // and may come back with another --model
            failedWhileStarting = false;
            startingSince = null;
        }
        if (h.up() || h.needsKey()) {
            reached = true; // an engine that refuses the key has answered: it is there
        }
        if (h.needsKey()) {
            if (!keyRefusedLogged) {
                keyRefusedLogged = true;
                LOG.warn("engine {} at {} refuses the agent's requests: {}; state needs_key, not paged as EngineDown, "
                                + "probes skipped (key_refused) until it accepts one", config.name(),
                        io.tailwatch.core.logging.Redact.url(config.url()),
                        io.tailwatch.core.logging.LogGuard.value(h.error()));
            }
        } else if (keyRefusedLogged) {
            keyRefusedLogged = false;
            LOG.info("engine {} accepts the agent's requests again", config.name());
        } else if (!reached) {
            if (!neverReachedLogged) {
                neverReachedLogged = true;
                LOG.warn("engine {} has never answered at {} since the agent started ({}): state never_reachable, not paged"
                        + " as EngineDown; start the engine, fix its url, or find running engines with `tailwatch detect`",
                        config.name(), io.tailwatch.core.logging.Redact.url(config.url()),
                        io.tailwatch.core.logging.LogGuard.value(io.tailwatch.core.logging.Redact.text(h.error())));
            }
        } else if (before == null || before.up() != h.up()) {
            if (h.up()) {
                LOG.info("engine {} is up ({})", config.name(), io.tailwatch.core.logging.LogGuard.value(upText(h)));
            } else {
                LOG.info("engine {} is down: {}", config.name(),
                        io.tailwatch.core.logging.LogGuard.value(io.tailwatch.core.logging.Redact.text(h.error())));
            }
        }
        if (h.up() && !h.loading()) {
            askModelFacts(h);
        }
        if (h.limit() != null && (before == null || before.limit() == null)) {
            LOG.warn("engine {}: {}: {}", config.name(), io.tailwatch.core.http.ProbeErrors.OVER_LIMIT,
                    h.limit().replaceAll("\\p{Cntrl}", " "));
        }
        publishEngine();
        publishProbes();
        return h;
    }

    /**
     * Loading is bounded: an engine that has reported loading for longer than its {@code health.loading_limit}
     * (an OpenAI-compatible server answering /health 503 forever) is down, so EngineDown can page it.
     */
    private EngineHealth pastLoadingLimit(EngineHealth h) {
        if (!h.loading()) {
            loadingSince = null;
            return h;
        }
        Instant now = clock.instant();
        Instant since = loadingSince;
        if (since == null) {
            loadingSince = now;
            return h;
        }
        Duration loading = Duration.between(since, now);
        if (loading.compareTo(config.loadingLimit()) <= 0) {
            return h;
        }
        return EngineHealth.down(h.checkedAt(), h.provider(), "still loading after "
                + io.tailwatch.core.units.Units.format(loading) + ", longer than health.loading_limit ("
                + io.tailwatch.core.units.Units.format(config.loadingLimit()) + "): it answers /health 503 and serves nothing");
    }

    /** Since when the engine has reported loading without a break (null while it does not). */
    public Instant loadingSince() {
        return loadingSince;
    }

    /**
     * Runs one probe of {@code scenarioName} unless a guardrail says not to (then counts the skip
     * and returns null). Never two probes of this engine at once.
     */
    public ProbeResult probe(String scenarioName) {
        ScenarioState s = scenarios.get(scenarioName);
        if (s == null) {
            throw new IllegalArgumentException("no scenario " + scenarioName + " on engine " + config.name());
        }
        HostSnapshot snap = host.get();
        Double pressure = snap == null ? null : snap.pressureLevel();
        if (config.skipWhenPressureCritical() && pressure != null && pressure >= CRITICAL_PRESSURE) {
            return skip(SkipReason.MEMORY_PRESSURE_CRITICAL);
        }
        if (!inFlight.compareAndSet(false, true)) {
            return skip(SkipReason.IN_FLIGHT);
        }
        try {
            EngineHealth h = health;
            if (h == null) {
                h = checkHealth();
            }
            if (h.needsKey()) {
                return skip(SkipReason.KEY_REFUSED);
            }
            if (!h.up()) {
                return skip(SkipReason.ENGINE_DOWN);
            }
            String model = config.model();
            if (model == null) {
                model = probeModel(h);
            }
            if (model == null) {
                return skip(SkipReason.NO_MODEL);
            }
            EngineConfig.Scenario sc = s.config;
            boolean wasStarting = starting(h);
            ProbeResult r = client.probe(new ProbeRequest(model, sc.promptTokens(), sc.maxTokens(), sc.temperature(),
                    sc.firstTokenTimeout(), sc.totalTimeout()));
            if (r.success()) {
                answeredSinceUp = true;
            }
            boolean timedOut = !r.success() && (io.tailwatch.core.http.ProbeErrors.FIRST_TOKEN_TIMEOUT.equals(r.errorType())
                    || io.tailwatch.core.http.ProbeErrors.TOTAL_TIMEOUT.equals(r.errorType()));
            if (wasStarting && (timedOut || r.success() && failedWhileStarting)) {
                // Loading: a time-out is the load, and so is the first answer after time-outs. Not paged, not in
                // the windows, baselines or queue estimate. Any other failure is recorded as it is.
                failedWhileStarting = timedOut;
                if (timedOut && startingSince == null) {
                    startingSince = clock.instant();
                }
                LOG.info("engine {} is still starting (no answer since it came up): probe {} not recorded ({})",
                        config.name(), s.config.name(), r.success() ? "the first answer, which held the load"
                                : io.tailwatch.core.logging.LogGuard.value(r.errorType()));
                publishEngine();
                return null;
            }
            record(s, EngineClient.recordedModel(model, served(model, h)), r);
            if (wasStarting) {
                publishEngine();
            }
            return r;
        } finally {
            inFlight.set(false);
        }
    }

    /**
     * The model a probe names when the config names none. An mlx_lm server lists its whole Hugging Face cache
     * and loads any listed model a request names (dropping the one it serves), and batches only requests with
     * equal model strings: its probe names the model string the proxied traffic uses most, else none at all
     * ({@link EngineClient#UNNAMED_MODEL}: served by the model the server serves). So does a probe of an
     * OpenAI-compatible engine whose model list cannot be read. Other engines: the first loaded model.
     */
    String probeModel(EngineHealth h) {
        boolean openai = io.tailwatch.core.probe.EngineApi.OPENAI == io.tailwatch.core.probe.EngineApi.of(config.api());
        if (openai && ("mlx_lm".equals(h.provider()) || !h.inventoryKnown())) {
            Supplier<String> t = trafficModel;
            String used = t == null ? null : t.get();
            return used != null && !used.isBlank() ? used : io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL;
        }
        return h.models().isEmpty() ? null : h.models().get(0).name();
    }

    /**
     * The name of the model a probe that names none ({@link EngineClient#UNNAMED_MODEL}) is served by: for an
     * mlx_lm server on this host, its {@code --model} ({@link io.tailwatch.core.host.MlxLmServerArgs}); null
     * elsewhere (a remote engine, another kind, a command line that does not tell), recorded as
     * {@link EngineClient#UNKNOWN_MODEL}, never as the placeholder its answers echo.
     */
    String served(String asked, EngineHealth h) {
        if (!EngineClient.UNNAMED_MODEL.equals(asked) || !"mlx_lm".equals(h.provider())
                || !io.tailwatch.core.host.EngineProcesses.local(config)) {
            return null;
        }
        Instant now = clock.instant();
        Instant at = servedModelReadAt;
        if (at == null || Duration.between(at, now).compareTo(SERVED_MODEL_REREAD) >= 0) {
            servedModelReadAt = now;
            String read;
            try {
                read = serverModel.get();
            } catch (RuntimeException e) {
                read = null;
            }
            if (!java.util.Objects.equals(read, servedModel)) {
                LOG.info("engine {}: serves {} (its command line's --model)", config.name(),
                        read == null ? "a model its command line does not tell" : io.tailwatch.core.logging.LogGuard.value(read));
            }
            servedModel = read;
        }
        return servedModel;
    }

    /** The served model's name as last read (null: not known, or no probe needed it yet). */
    public String servedModel() {
        return servedModel;
    }

    /** Where the served model is read from (tests give a command line of their own). */
    void serverModel(Supplier<String> read) {
        this.serverModel = read;
        this.servedModelReadAt = null;
    }

    /** Reads the served model from the command line of the process listening on the engine's port. */
    private volatile Supplier<String> serverModel = () -> {
        try {
            return io.tailwatch.core.host.MlxLmServerArgs.servedModel(
                    io.tailwatch.core.host.platform.HostSources.processTable().get(), config, ProcessHandle.current().pid());
        } catch (java.io.IOException e) {
            return null;
        }
    };

    /** Where the proxied traffic's most used model string comes from (the daemon wires the engine's proxy here). */
    public void trafficModel(Supplier<String> mostUsed) {
        this.trafficModel = mostUsed;
    }

    /**
     * Starting: an mlx_lm server (whose /health says ok while it loads) that has not answered a probe since it
     * came up, with scenarios to probe it.
     */
    boolean starting(EngineHealth h) {
        Instant since = startingSince;
        return h != null && h.up() && !h.loading() && "mlx_lm".equals(h.provider()) && !answeredSinceUp
                && !scenarios.isEmpty()
                && (since == null || Duration.between(since, clock.instant()).compareTo(config.loadingLimit()) <= 0);
    }

    /** Seen starting: an mlx_lm probe timed out before the engine's first answer (reported as loading). */
    boolean seenStarting(EngineHealth h) {
        return failedWhileStarting && starting(h);
    }

    private ProbeResult skip(SkipReason reason) {
        skipped.computeIfAbsent(reason, k -> new AtomicLong()).incrementAndGet();
        LOG.debug("engine {}: probe skipped ({})", config.name(), reason.value());
        publishProbes();
        return null;
    }

    private void record(ScenarioState s, String model, ProbeResult r) {
        s.last = r;
        if (r.success() && r.decodeTokensPerSecond() != null) {
            s.lastDecodeRate = r.decodeTokensPerSecond();
        }
        if (r.success()) {
            s.lastEngineDecodeRate = r.serverDecodeTokensPerSecond();
            s.lastEngineTtft = r.serverTtftSeconds();
        }
        synchronized (s.windows) {
            s.windows.computeIfAbsent(model, k -> new ProbeWindow(s.config.window(), windowMax))
                    .add(clock.instant(), r.success(), r.e2eSeconds(), r.ttftSeconds() == null ? Double.NaN : r.ttftSeconds());
        }
        Map<String, String> base = new TreeMap<>();
        base.put(AttrKeys.ENGINE, config.name());
        base.put(AttrKeys.SCENARIO, s.config.name());
        Attrs.put(base, Operation.CHAT);
        base.put(AttrKeys.PROVIDER, provider());
        base.put(AttrKeys.MODEL, model);
        String answered = EngineClient.answeredModel(r.responseModel(), servedModel);
        if (answered != null) {
            base.put(AttrKeys.RESPONSE_MODEL, answered);
        }
        base.put(AttrKeys.SERVER_ADDRESS, config.url().getHost());
        base.put(AttrKeys.SERVER_PORT, Integer.toString(config.port()));
        Map<String, String> withError = new TreeMap<>(base);
        if (!r.success()) {
            withError.put(AttrKeys.ERROR_TYPE, r.errorType() == null ? "_OTHER" : r.errorType());
        }
        GenAiConventions names = hub.genAiConventions();
        if (names.v141()) {
            hub.record(ProbeMetrics.OPERATION_DURATION, withError, r.e2eSeconds());
        }
        if (names.latest()) {
            hub.record(ProbeMetrics.INFERENCE_DURATION, withError, r.e2eSeconds());
        }
        if (r.ttftSeconds() != null) {
            if (names.v141()) {
                hub.record(ProbeMetrics.TIME_TO_FIRST_CHUNK, base, r.ttftSeconds());
            }
            if (names.latest()) {
                hub.record(ProbeMetrics.INFERENCE_TIME_TO_FIRST_CHUNK, base, r.ttftSeconds());
            }
        }
        for (double gap : r.chunkGapsSeconds()) {
            if (names.v141()) {
                hub.record(ProbeMetrics.TIME_PER_OUTPUT_CHUNK, base, gap);
            }
            if (names.latest()) {
                hub.record(ProbeMetrics.INFERENCE_TIME_PER_OUTPUT_CHUNK, base, gap);
            }
        }
        if (r.success() && r.tokenSource() != null) {
            if (r.outputTokens() != null) {
                probeOutputTokens.accumulateAndGet(r.outputTokens(), io.tailwatch.core.probe.InputRange::saturatingAdd);
                recordTokens(s, base, TokenType.OUTPUT, r.tokenSource(), r.outputTokens(), names);
            }
            if (r.inputTokens() != null) {
                recordTokens(s, base, TokenType.INPUT, r.tokenSource(), r.inputTokens(), names);
            }
        }
        if (!r.success()) {
            LOG.debug("engine {} scenario {}: probe failed: {} {}", config.name(), s.config.name(), r.errorType(),
                    r.errorMessage());
        }
        publishProbes();
    }

    /**
     * One probe's token count: the 1.41.0 histogram ({@code gen_ai.client.token.usage} by token type) and/or the
     * semantic-conventions-genai per-operation histogram and usage counter of that direction.
     */
    private void recordTokens(ScenarioState s, Map<String, String> base, TokenType type, String source, double tokens,
                              GenAiConventions names) {
        if (names.v141()) {
            Map<String, String> a = new TreeMap<>(base);
            Attrs.put(a, type);
            a.put(AttrKeys.TOKEN_SOURCE, source);
            hub.record(ProbeMetrics.TOKEN_USAGE, a, tokens);
        }
        if (names.latest()) {
            Map<String, String> a = new TreeMap<>(base);
            a.put(AttrKeys.TOKEN_SOURCE, source);
            hub.record(type == TokenType.INPUT ? ProbeMetrics.INFERENCE_INPUT_TOKENS : ProbeMetrics.INFERENCE_OUTPUT_TOKENS, a, tokens);
            Attrs.put(a, TokenModality.TEXT);
            synchronized (s.tokenTotals) {
                Map<String, Map<String, String>> byKey = s.tokenTotals;
                String key = type.name() + a;
                if (byKey.containsKey(key) || byKey.size() < MAX_TOKEN_SERIES_PER_SCENARIO) {
                    byKey.putIfAbsent(key, a);
                    s.tokenSums.merge(key, tokens, Double::sum);
                }
            }
        }
    }

    /** Usage-counter series one scenario keeps (input and output, per model, response model and token source). */
    static final int MAX_TOKEN_SERIES_PER_SCENARIO = 64;

    /** Asks the facts (format, quantization) of up to {@link #FACTS_PER_CHECK} loaded models not asked yet. */
    private void askModelFacts(EngineHealth h) {
        int asked = 0;
        for (LoadedModel m : h.models()) {
            if (asked >= FACTS_PER_CHECK) {
                break;
            }
            if (!modelFacts.containsKey(m.name())) {
                modelFacts.put(m.name(), client.modelFacts(m.name(), config.healthTimeout()));
                asked++;
            }
        }
    }

    /** What the engine said about a model's weights (format, quantization), or UNKNOWN when not asked yet. */
    io.tailwatch.core.probe.ModelFacts modelFacts(String model) {
        io.tailwatch.core.probe.ModelFacts f = modelFacts.get(model);
        return f == null ? io.tailwatch.core.probe.ModelFacts.UNKNOWN : f;
    }

    /** What the log line of an engine coming up says in brackets: its kind, and its version when known. */
    static String upText(EngineHealth h) {
        return h.version() == null || h.version().isBlank() ? h.provider() : h.provider() + " " + h.version();
    }

    /** A version's leading MAJOR.MINOR (mlx_lm's "0.28.1" -> 0, 28). */
    private static final java.util.regex.Pattern MAJOR_MINOR = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)");

    /**
     * True when the engine sends response headers when it admits a request into its batch, not when a slot
     * takes it (mlx_lm.server 0.28 and later, as its answers' system_fingerprint tells): its time to headers
     * measures no queue. An mlx_lm whose version is not known yet keeps the estimate.
     */
    public boolean headersAtAdmission() {
        EngineHealth h = health;
        if (h == null || !"mlx_lm".equals(h.provider()) || h.version() == null) {
            return false;
        }
        java.util.regex.Matcher m = MAJOR_MINOR.matcher(h.version());
        return m.find() && (Integer.parseInt(m.group(1)) > 0 || Integer.parseInt(m.group(2)) >= 28);
    }

    /** gen_ai.provider.name: what the health check detected, else the API's own name. */
    String provider() {
        EngineHealth h = health;
        return h != null && h.provider() != null ? h.provider() : config.api();
    }

    synchronized void publishEngine() {
        if (retired) {
            return;
        }
        EngineHealth h = health;
        List<Point> points = new ArrayList<>();
        if (h != null) {
            String e = config.name();
            if (!h.needsKey()) {
                // An engine that refuses the key answers, but whether it is healthy is unknown: no up series.
                points.add(Point.of(EngineMetrics.UP, h.up() ? 1 : 0, AttrKeys.ENGINE, e));
            }
            points.add(Point.of(EngineMetrics.REACHED, reached ? 1 : 0, AttrKeys.ENGINE, e));
            points.add(Point.of(EngineMetrics.KEY_REFUSED, h.needsKey() ? 1 : 0, AttrKeys.ENGINE, e));
            points.add(Point.of(EngineMetrics.LOADING, h.loading() || seenStarting(h) ? 1 : 0, AttrKeys.ENGINE, e));
            points.add(Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, e, AttrKeys.ENGINE_API, config.api(), AttrKeys.ENGINE_VERSION,
                    h.version() == null ? "unknown" : h.version()));
            if (h.up() && !h.loading() && h.inventoryKnown()) {
                // mlx_lm's list is its Hugging Face cache, not what it holds: listed, and loaded left unknown.
                points.add(Point.of("mlx_lm".equals(h.provider()) ? EngineMetrics.MODELS_LISTED : EngineMetrics.MODELS_LOADED,
                        h.modelsTotal(), AttrKeys.ENGINE, e));
            }
            HostSnapshot snap = host.get();
            for (LoadedModel m : h.models()) {
                String model = m.name();
                if (m.sizeBytes() != null) {
                    points.add(Point.of(EngineMetrics.MODEL_MEMORY, m.sizeBytes(), ModelMemoryKind.TOTAL, AttrKeys.ENGINE, e,
                            AttrKeys.MODEL, model));
                }
                if (m.vramBytes() != null) {
                    points.add(Point.of(EngineMetrics.MODEL_MEMORY, m.vramBytes(), ModelMemoryKind.VRAM, AttrKeys.ENGINE, e,
                            AttrKeys.MODEL, model));
                }
                if (m.contextLength() != null) {
                    points.add(Point.of(EngineMetrics.MODEL_CONTEXT, m.contextLength(), AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                }
                Double unloadAt = unixSeconds(m.expiresAt());
                if (unloadAt != null) {
                    points.add(Point.of(EngineMetrics.MODEL_UNLOAD_TIME, unloadAt, AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                }
                KvPlan.Headroom room = headroom(m, h.models().size(), snap);
                if (m.shape() != null) {
                    double perToken = KvCacheMath.bytesPerToken(m.shape(), KV_BYTES_PER_ELEMENT);
                    if (perToken > 0) {
                        points.add(Point.of(EngineMetrics.KV_BYTES_PER_TOKEN, perToken, AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                        if (room.kvContextBytes() != null) {
                            points.add(Point.of(EngineMetrics.KV_CONTEXT_BYTES, room.kvContextBytes(),
                                    AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                        }
                    }
                }
                if (room.headroomTokens() != null) {
                    points.add(Point.of(EngineMetrics.KV_HEADROOM, room.headroomTokens(), AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                }
                if (room.gpuShare() != null) {
                    points.add(Point.of(EngineMetrics.GPU_MEMORY_SHARE, room.gpuShare(), AttrKeys.ENGINE, e, AttrKeys.MODEL, model));
                }
            }
        }
        hub.publish("engine/" + config.name(), points);
    }

    /** An RFC 3339 time (Ollama's expires_at) as Unix seconds; null when absent or not such a time. */
    static Double unixSeconds(String rfc3339) {
        if (rfc3339 == null || rfc3339.length() > 64) {
            return null;
        }
        try {
            Instant t = java.time.OffsetDateTime.parse(rfc3339).toInstant();
            return t.getEpochSecond() + t.getNano() / 1e9;
        } catch (java.time.format.DateTimeParseException ex) {
            return null;
        }
    }

    /**
     * One loaded model against the GPU limit and available memory ({@link KvPlan#headroom}). The
     * footprint is the engine's own figure (Ollama's size, which holds the context's KV cache), else,
     * when the engine has this one model loaded, its processes' physical footprint.
     */
    KvPlan.Headroom headroom(LoadedModel m, int modelsLoaded) {
        return headroom(m, modelsLoaded, host.get());
    }

    KvPlan.Headroom headroom(LoadedModel m, int modelsLoaded, HostSnapshot snap) {
        Double perToken = m.shape() == null ? null : KvCacheMath.bytesPerToken(m.shape(), KV_BYTES_PER_ELEMENT);
        Double footprint = m.sizeBytes() != null ? Double.valueOf(m.sizeBytes())
                : modelsLoaded == 1 && snap != null ? snap.processFootprint(config.name()) : null;
        return KvPlan.headroom(perToken, footprint, m.sizeBytes() != null, m.contextLength(),
                snap == null ? null : snap.gpuMemoryLimit(), snap == null ? null : snap.memoryAvailable(),
                snap == null ? null : snap.enginesGpuMemory());
    }

    synchronized void publishProbes() {
        if (retired) {
            return;
        }
        String e = config.name();
        List<Point> points = new ArrayList<>();
        skipped.forEach((reason, n) -> points.add(Point.of(ProbeMetrics.PROBES_SKIPPED, n.get(), reason, AttrKeys.ENGINE, e)));
        Instant now = clock.instant();
        for (ScenarioState s : scenarios.values()) {
            String sc = s.config.name();
            ProbeResult last = s.last;
            if (last != null) {
                points.add(Point.of(ProbeMetrics.PROBE_SUCCESS, last.success() ? 1 : 0, AttrKeys.ENGINE, e, AttrKeys.SCENARIO, sc));
            }
            if (s.lastDecodeRate != null) {
                points.add(Point.of(ProbeMetrics.DECODE_RATE, s.lastDecodeRate, AttrKeys.ENGINE, e, AttrKeys.SCENARIO, sc));
            }
            Double engineRate = s.lastEngineDecodeRate;
            Double engineTtft = s.lastEngineTtft;
            if (engineRate != null) {
                points.add(Point.of(ProbeMetrics.ENGINE_DECODE_RATE, engineRate, AttrKeys.ENGINE, e, AttrKeys.SCENARIO, sc));
            }
            if (engineTtft != null) {
                points.add(Point.of(ProbeMetrics.ENGINE_TTFT, engineTtft, AttrKeys.ENGINE, e, AttrKeys.SCENARIO, sc));
            }
            synchronized (s.tokenTotals) {
                s.tokenTotals.forEach((key, attrs) -> points.add(new Point(key.startsWith("INPUT")
                        ? ProbeMetrics.USAGE_INPUT_TOKENS : ProbeMetrics.USAGE_OUTPUT_TOKENS, attrs, s.tokenSums.get(key))));
            }
            for (Map.Entry<String, ProbeWindow.Stats> w : windowStats(s, now).entrySet()) {
                windowPoints(points, e, w.getKey(), sc, w.getValue());
            }
        }
        hub.publish("probe/" + e, points);
    }

    /** The window series of one engine/model/scenario: samples, and with samples the error ratio and percentiles. */
    static void windowPoints(List<Point> points, String engine, String model, String scenario, ProbeWindow.Stats st) {
        String[] attrs = {AttrKeys.ENGINE, engine, AttrKeys.MODEL, model, AttrKeys.SCENARIO, scenario};
        points.add(new Point(ProbeMetrics.WINDOW_SAMPLES, io.tailwatch.metrics.Attrs.of(attrs), st.samples()));
        if (st.samples() == 0) {
            return;
        }
        points.add(new Point(ProbeMetrics.WINDOW_ERROR_RATIO, io.tailwatch.metrics.Attrs.of(attrs), st.errorRatio()));
        percentiles(points, ProbeMetrics.WINDOW_E2E, attrs, st.e2eP50(), st.e2eP95(), st.e2eP99());
        percentiles(points, ProbeMetrics.WINDOW_TTFT, attrs, st.ttftP50(), st.ttftP95(), st.ttftP99());
    }

    /**
     * The stats of every window; a window whose model was not probed for two window ages is removed
     * (its series leave the exporters, as the hub's histogram series do after the same time).
     */
    Map<String, ProbeWindow.Stats> windowStats(ScenarioState s, Instant now) {
        Map<String, ProbeWindow.Stats> out = new LinkedHashMap<>();
        Instant expired = now.minus(s.config.window().multipliedBy(2));
        synchronized (s.windows) {
            for (Map.Entry<String, ProbeWindow> w : new ArrayList<>(s.windows.entrySet())) {
                Instant last = w.getValue().lastAdded();
                if (last != null && last.isBefore(expired)) {
                    s.windows.remove(w.getKey());
                    continue;
                }
                out.put(w.getKey(), w.getValue().stats(now));
            }
        }
        return out;
    }

    private static void percentiles(List<Point> points, io.tailwatch.metrics.MetricDef def, String[] attrs, Double p50,
                                  Double p95, Double p99) {
        Double[] v = {p50, p95, p99};
        Percentile[] q = {Percentile.P50, Percentile.P95, Percentile.P99};
        for (int i = 0; i < 3; i++) {
            if (v[i] != null) {
                Map<String, String> a = Attrs.of(q[i], attrs);
                points.add(new Point(def, a, v[i]));
            }
        }
    }

    void close() {
        client.close();
    }

    /** Stops publishing and takes this engine's series out of the hub (its alerts resolve at the next evaluation). */
    /**
     * Applies settings that keep this watch ({@link EngineReload}: only keys it reads live or never reads
     * changed); its state, windows and history stay.
     */
    void retune(EngineConfig next) {
        if (EngineReload.restartsWatch(config, next)) {
            throw new IllegalArgumentException("engine " + config.name() + ": " + EngineReload.changed(config, next)
                    + " restart its watch");
        }
        config = next;
    }

    synchronized void retire() {
        retired = true;
        hub.publish("engine/" + config.name(), List.of());
        hub.publish("probe/" + config.name(), List.of());
        close();
    }
}
