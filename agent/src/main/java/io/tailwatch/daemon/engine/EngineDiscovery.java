package io.tailwatch.daemon.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.http.BoundedJson;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.EngineFlavor;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Finds LLM engines on loopback ports and tells them apart by what their API answers, never by the
 * port alone: Ollama answers {@code GET /api/version}; LM Studio {@code GET /api/v1/models} (0.4 and later: a
 * {@code models} list with {@code loaded_instances}) or {@code GET /api/v0/models}; llama.cpp
 * {@code GET /props}; vLLM lists its models as {@code owned_by: "vllm"}, vllm-mlx as {@code "vllm-mlx"} (and its
 * open {@code /health} names its {@code engine_type}); mlx_lm.server answers
 * {@code GET /v1/models} and {@code /health} with {@code {"status": "ok"}}; anything else that answers
 * {@code /v1/models} is an OpenAI-compatible server. One that answers {@code /props} or {@code /v1/models} with HTTP 401 or 403
 * is an engine that needs an API key (llama.cpp when {@code /props} refuses too and {@code /health} answers,
 * vLLM when its open {@code /version} answers): it is listed and watched, never skipped. Every request has a deadline
 * ({@link #REQUEST_DEADLINE}); ports are checked in parallel, so a scan takes about one deadline per
 * identification step at most, and {@link #SCAN_DEADLINE} in all.
 */
public final class EngineDiscovery {
    /** Every engine API's well-known ports: Ollama 11434, mlx_lm.server and llama.cpp 8080, LM Studio 1234, vLLM 8000. */
    public static final List<Integer> WELL_KNOWN_PORTS = EngineApi.allWellKnownPorts();
    public static final Duration CONNECT_TIMEOUT = Duration.ofMillis(300);
    public static final Duration REQUEST_DEADLINE = Duration.ofSeconds(2);
    public static final Duration SCAN_DEADLINE = Duration.ofSeconds(15);
    /** At most this many ports per scan (bounds the threads and the time). */
    public static final int MAX_PORTS = 32;

    private EngineDiscovery() {
    }

    /**
     * What one port answered.
     *
     * @param flavor  which engine answered ({@link EngineFlavor}), or null when no engine answers
     * @param status  a short reading for the table: "closed", "no answer", "not an engine (...)", or the evidence
     * @param models  model ids the engine lists (at most 5)
     * @param keyRefusedStatus 401 or 403 when the engine refused the requests for want of an API key, else null
     */
    public record Found(int port, URI url, EngineFlavor flavor, String status, String version, List<String> models,
                        Integer keyRefusedStatus) {
        public Found(int port, URI url, EngineFlavor flavor, String status, String version, List<String> models) {
            this(port, url, flavor, status, version, models, null);
        }

        public boolean engine() {
            return flavor != null;
        }

        /** True for an engine that answered HTTP 401/403: its config needs {@code api_key:}. */
        public boolean needsKey() {
            return keyRefusedStatus != null;
        }

        /** The environment variable an engine's {@code api_key: ${...}} line names: NAME_API_KEY in capitals. */
        public static String keyVariable(String engineName) {
            return engineName.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]+", "_") + "_API_KEY";
        }

        /** ollama, mlx_lm, llamacpp, lmstudio, vllm, openai (another OpenAI-compatible server); null when no engine. */
        public String kind() {
            return flavor == null ? null : flavor.kind();
        }

        /** The probe API to use (an {@link EngineApi} name); null when no engine. */
        public String api() {
            return flavor == null ? null : flavor.api().wireName();
        }
    }

    /** Scans {@code host} (a loopback address) on the given ports, in parallel, in port order. */
    public static List<Found> scan(String host, List<Integer> ports) {
        List<Integer> unique = new ArrayList<>(new LinkedHashSet<>(ports));
        if (unique.size() > MAX_PORTS) {
            throw new IllegalArgumentException("at most " + MAX_PORTS + " ports per scan, got " + unique.size());
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(unique.size(), 8)), r -> {
            Thread t = new Thread(r, "tailwatch-detect");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Found>> futures = new ArrayList<>();
            for (int p : unique) {
                futures.add(pool.submit(() -> identify(host, p)));
            }
            long end = System.nanoTime() + SCAN_DEADLINE.toNanos();
            List<Found> out = new ArrayList<>();
            for (int i = 0; i < unique.size(); i++) {
                URI url = base(host, unique.get(i));
                try {
                    out.add(futures.get(i).get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (java.util.concurrent.TimeoutException e) {
                    futures.get(i).cancel(true);
                    out.add(new Found(unique.get(i), url, null, "no answer within the scan deadline", null, List.of()));
                } catch (java.util.concurrent.ExecutionException e) {
                    out.add(new Found(unique.get(i), url, null, "check failed: " + e.getCause(), null, List.of()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    static URI base(String host, int port) {
        return URI.create("http://" + io.tailwatch.core.config.HostPort.format(host, port));
    }

    /** Identifies what listens on one port. */
    public static Found identify(String host, int port) {
        URI base = base(host, port);
        // Ollama: GET /api/version -> {"version": ...}
        HttpTransport.JsonReply v = get(base, "/api/version");
        if (v.status() == 0 && v.error() != null) {
            String status = ProbeErrors.CONNECT_REFUSED.equals(v.errorType()) ? "closed" : "no answer (" + v.errorType() + ")";
            return new Found(port, base, null, status, null, List.of());
        }
        JsonNode vj = json(v);
        if (v.ok() && vj != null && vj.path("version").isTextual()) {
            List<String> models = names(json(get(base, "/api/tags")), "models", "name");
            return new Found(port, base, EngineFlavor.OLLAMA, "GET /api/version answers {\"version\"}", vj.path("version").asText(),
                    models);
        }
        // LM Studio 0.4+: GET /api/v1/models -> models[] with key / loaded_instances.
        JsonNode lmsV1 = json(get(base, LMSTUDIO_MODELS));
        if (lmsV1 != null && lmsV1.path("models").isArray() && hasAny(lmsV1.path("models"), "loaded_instances")) {
            return new Found(port, base, EngineFlavor.LMSTUDIO, "GET /api/v1/models answers (LM Studio 0.4 or later)", null,
                    lmStudioModels(lmsV1));
        }
        // LM Studio before 0.4: GET /api/v0/models -> data[] with state / compatibility_type.
        JsonNode lms = json(get(base, "/api/v0/models"));
        if (lms != null && lms.path("data").isArray() && hasAny(lms.path("data"), "state", "compatibility_type")) {
            return new Found(port, base, EngineFlavor.LMSTUDIO, "GET /api/v0/models answers (LM Studio)", null,
                    names(lms, "data", "id"));
        }
        // llama.cpp: GET /props -> default_generation_settings / total_slots.
        HttpTransport.JsonReply propsReply = get(base, "/props");
        if (io.tailwatch.core.probe.EngineHealth.refusesKey(propsReply.status())) {
            return keyed(port, base, "/props", propsReply.status());
        }
        JsonNode props = json(propsReply);
        if (props != null && (props.has("default_generation_settings") || props.has("total_slots"))) {
            return new Found(port, base, EngineFlavor.LLAMACPP, "GET /props answers (llama.cpp server)",
                    props.path("build_info").isTextual() ? props.path("build_info").asText() : null,
                    names(json(get(base, "/v1/models")), "data", "id"));
        }
        HttpTransport.JsonReply modelsReply = get(base, "/v1/models");
        if (io.tailwatch.core.probe.EngineHealth.refusesKey(modelsReply.status())) {
            return keyed(port, base, "/v1/models", modelsReply.status());
        }
        JsonNode models = json(modelsReply);
        if (modelsReply.status() == 200 && (models == null || !models.path("data").isArray())) {
            // mlx_lm.server without a hub directory answers /v1/models 200 with an empty body: its health tells.
            JsonNode health = json(get(base, "/health"));
            if (health != null && "ok".equals(health.path("status").asText(""))) {
                return new Found(port, base, EngineFlavor.MLX_LM, "GET /health {\"status\":\"ok\"}, /v1/models 200 "
                        + "without a list (mlx_lm.server without a Hugging Face cache: models unknown)", null, List.of());
            }
        }
        if (models != null && models.path("data").isArray()) {
            List<String> ids = names(models, "data", "id");
            for (JsonNode m : models.path("data")) {
                if ("vllm-mlx".equals(m.path("owned_by").asText(""))) {
                    return new Found(port, base, EngineFlavor.VLLM_MLX, "GET /v1/models owned_by \"vllm-mlx\"", null, ids);
                }
                if ("vllm".equals(m.path("owned_by").asText(""))) {
                    JsonNode ver = json(get(base, "/version"));
                    return new Found(port, base, EngineFlavor.VLLM, "GET /v1/models owned_by \"vllm\"",
                            ver == null ? null : ver.path("version").asText(null), ids);
                }
            }
            JsonNode health = json(get(base, "/health"));
            if (health != null && "ok".equals(health.path("status").asText(""))) {
                // It lists its Hugging Face cache first and the model it serves last: keep the last one last.
                JsonNode data = models.path("data");
                String served = data.size() == 0 ? null : data.get(data.size() - 1).path("id").asText(null);
                if (served != null && !ids.isEmpty() && !served.equals(ids.get(ids.size() - 1))) {
                    List<String> kept = new ArrayList<>(ids.subList(0, ids.size() - 1));
                    kept.add(served);
                    ids = kept;
                }
                return new Found(port, base, EngineFlavor.MLX_LM, "GET /v1/models and /health {\"status\":\"ok\"} (mlx_lm.server)",
                        null, ids);
            }
            return new Found(port, base, EngineFlavor.OPENAI, "GET /v1/models answers (OpenAI-compatible)", null, ids);
        }
        return new Found(port, base, null, "not an engine (HTTP " + v.status() + " on /api/version, no /v1/models)",
                null, List.of());
    }

    /**
     * An engine that refuses {@code endpoint} with {@code status}: which one it is, from what it answers
     * without a key (vLLM's {@code /version}; llama.cpp's {@code /health} beside a refused {@code /props}).
     */
    private static Found keyed(int port, URI base, String endpoint, int status) {
        String why = "needs an API key (HTTP " + status + " on " + endpoint + ")";
        JsonNode ver = json(get(base, "/version"));
        if (ver != null && ver.path("version").isTextual()) {
            return new Found(port, base, EngineFlavor.VLLM, why + ", GET /version answers (vLLM)", ver.path("version").asText(),
                    List.of(), status);
        }
        HttpTransport.JsonReply props = endpoint.equals("/props") ? null : get(base, "/props");
        JsonNode health = json(get(base, "/health"));
        if (vllmMlxHealth(health)) {
            return new Found(port, base, EngineFlavor.VLLM_MLX, why + ", GET /health names its engine_type (vllm-mlx)", null,
                    List.of(), status);
        }
        if ((props == null || io.tailwatch.core.probe.EngineHealth.refusesKey(props.status())) && health != null
                && "ok".equals(health.path("status").asText(""))) {
            return new Found(port, base, EngineFlavor.LLAMACPP, why + (props == null ? "" : ", /props refused too")
                    + ", /health ok (llama.cpp server)",
                    null, List.of(), status);
        }
        return new Found(port, base, EngineFlavor.OPENAI, why, null, List.of(), status);
    }

    /** Engine names for the found engines, in order: the kind's name, with "-PORT" when taken. */
    public static List<String> names(List<Found> found) {
        List<String> out = new ArrayList<>();
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (Found f : found) {
            if (!f.engine()) {
                out.add(null);
                continue;
            }
            String n = f.flavor().engineName();
            if (!taken.add(n)) {
                n = n + "-" + f.port();
                taken.add(n);
            }
            out.add(n);
        }
        return out;
    }

    /**
     * Engine configs for what was found, exactly as the config file would make them from a listed
     * engine without options (so discovered engines get the same defaults, windows and checks).
     */
    public static List<EngineConfig> engines(List<Found> found) {
        return engines(found, System.getenv());
    }

    /** As {@link #engines(List)}, reading the keys of engines that need one from {@code env}. */
    public static List<EngineConfig> engines(List<Found> found, Map<String, String> env) {
        return engines(found, env, EngineConfig.DEFAULT_HEALTH_INTERVAL);
    }

    /** As {@link #engines(List, Map)}, each engine checked every {@code healthInterval} ({@code discovery.health_interval}). */
    public static List<EngineConfig> engines(List<Found> found, Map<String, String> env, java.time.Duration healthInterval) {
        List<String> names = names(found);
        StringBuilder yaml = new StringBuilder("engines:\n");
        int n = 0;
        for (int i = 0; i < found.size(); i++) {
            Found f = found.get(i);
            if (!f.engine()) {
                continue;
            }
            n++;
            yaml.append("  - name: ").append(names.get(i)).append("\n    api: ").append(f.api()).append("\n    url: ")
                    .append(yamlScalar(f.url().toString())).append('\n');
            if (!healthInterval.equals(EngineConfig.DEFAULT_HEALTH_INTERVAL)) {
                yaml.append("    health:\n      interval: ").append(healthInterval.toMillis()).append("ms\n");
            }
            String keyVar = Found.keyVariable(names.get(i));
            if (f.needsKey() && env.get(keyVar) != null && !env.get(keyVar).isEmpty()) {
                // The key the detect block names, when it is set; without it the engine is watched as needs_key.
                yaml.append("    api_key: ${").append(keyVar).append("}\n");
            }
            List<String> procs = f.flavor().processNames();
            if (!procs.isEmpty()) {
                yaml.append("    process:\n      names: [")
                        .append(String.join(", ", procs.stream().map(EngineDiscovery::yamlScalar).toList())).append("]\n");
            }
        }
        if (n == 0) {
            return List.of();
        }
        try {
            return io.tailwatch.core.config.Config.parse(yaml.toString(), "discovered engines", env).engines();
        } catch (io.tailwatch.core.config.ConfigException e) {
            throw new IllegalStateException("discovered engines do not make a valid config: " + e.getMessage(), e);
        }
    }

    /** Writes the ready block's values: every scalar quoted where YAML needs it, never a document marker. */
    private static final com.fasterxml.jackson.databind.ObjectMapper YAML = new com.fasterxml.jackson.databind.ObjectMapper(
            com.fasterxml.jackson.dataformat.yaml.YAMLFactory.builder()
                    .disable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                    .build());

    /** Longest model id the ready block names; a longer one is left for the operator to write. */
    static final int MAX_MODEL_ID = 256;

    /**
     * A model id an engine listed that the ready block may hold as a value: no control character or
     * other character a terminal acts on ({@link io.tailwatch.core.text.SafeText#unsafe}), no
     * {@code ${} (the config would take it as an environment variable), at most {@link #MAX_MODEL_ID}
     * characters. Any other text is written by the YAML writer, quoted as it needs.
     */
    static boolean pastable(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_MODEL_ID || id.contains("${")) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (io.tailwatch.core.text.SafeText.unsafe(id.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A ready {@code engines:} block for config/tailwatch.yaml. The values are written by a YAML writer
     * (quoted where needed), and comments hold only the agent's own words and model ids that
     * {@link #pastable}; an id that is not is never printed, so what an engine lists cannot add keys
     * to the block or send an environment variable anywhere.
     */
    public static String configBlock(List<Found> found) {
        List<String> names = names(found);
        StringBuilder sb = new StringBuilder("engines:\n");
        boolean any = false;
        for (int i = 0; i < found.size(); i++) {
            Found f = found.get(i);
            if (!f.engine()) {
                continue;
            }
            any = true;
            List<String> ids = f.models().stream().filter(EngineDiscovery::pastable).toList();
            boolean refused = ids.size() < f.models().size();
            Map<String, Object> e = new java.util.LinkedHashMap<>();
            e.put("name", names.get(i));
            e.put("api", f.api());
            e.put("url", f.url().toString());
            List<String> comments = new ArrayList<>();
            if (f.needsKey()) {
                e.put("api_key", "${" + Found.keyVariable(names.get(i)) + "}");
                comments.add("# api_key: it answers HTTP " + f.keyRefusedStatus() + " without one: export the key in "
                        + Found.keyVariable(names.get(i)));
            }
            if (!f.kind().equals(f.api())) {
                comments.add("# " + f.kind());
            }
            if (f.flavor().servesOneModel() && f.models().size() == 1 && ids.size() == 1) {
                e.put("model", ids.get(0));
            } else if (f.flavor() == EngineFlavor.MLX_LM) {
                comments.add("# model: omitted = no model field, served by the model mlx_lm.server was started with (its"
                        + " list is its Hugging Face cache; naming another listed model makes it load that one)");
            } else if (f.flavor() == EngineFlavor.OLLAMA) {
                comments.add("# model: omitted = the first loaded model (naming one that is not loaded makes Ollama load it)");
            } else if (!ids.isEmpty()) {
                comments.add("# model: " + yaml(ids.get(0)) + "   # it lists "
                        + (f.models().size() == 1 ? "1 model" : f.models().size() + " models")
                        + "; name the one it serves so a probe never loads another");
            }
            if (refused) {
                comments.add("# a model id it lists has characters a config value cannot hold (control characters or an"
                        + " environment reference);"
                        + " name the model yourself");
            }
            List<String> procs = f.flavor().processNames();
            if (!procs.isEmpty()) {
                e.put("process", Map.of("names", procs));
            }
            String entry;
            try {
                entry = YAML.writeValueAsString(List.of(e));
            } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
                throw new IllegalStateException(ex);
            }
            for (String line : entry.split("\n")) {
                sb.append("  ").append(line).append('\n');
            }
            for (String c : comments) {
                sb.append("    ").append(c).append('\n');
            }
        }
        if (!any) {
            return "engines: []   # nothing found; or keep `engines: auto` to pick engines up when they start\n";
        }
        return sb.toString();
    }

    /** One scalar as the YAML writer writes it (quoted where needed), for a comment line. */
    private static String yaml(String s) {
        try {
            String doc = YAML.writeValueAsString(s);
            return doc.endsWith("\n") ? doc.substring(0, doc.length() - 1) : doc;
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String yamlScalar(String s) {
        return s.matches("[A-Za-z0-9_./:-]+") && !s.contains(": ") ? s : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * One identification read, streamed into a small bounded tree ({@link BoundedJson.Limits#SMALL}): a
     * port answering megabytes costs a few KiB, and up to eight ports are read at once.
     */
    /**
     * An mlx_lm.server's version, from the {@code system_fingerprint} of one completion of one token sent without
     * a {@code model} field (so it is served by the model the server serves and loads nothing); the entry
     * unchanged for other engines or when the answer tells none within the deadline.
     */
    public static Found withMlxVersion(Found f) {
        if (f.flavor() != EngineFlavor.MLX_LM || f.version() != null) {
            return f;
        }
        com.fasterxml.jackson.databind.node.ObjectNode body = HttpTransport.JSON.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").put("content", "Say ok.");
        body.put("max_tokens", 1);
        body.put("stream", false);
        JsonNode answer = json(HttpTransport.json(f.url().resolve("/v1/chat/completions"), body, null, CONNECT_TIMEOUT,
                REQUEST_DEADLINE, BoundedJson.Limits.SMALL));
        String v = answer == null ? null : io.tailwatch.core.probe.MlxFingerprint.version(
                answer.path("system_fingerprint").asText(null));
        return v == null ? f : new Found(f.port(), f.url(), f.flavor(), f.status(), v, f.models(), f.keyRefusedStatus());
    }

    /** LM Studio's native model list (0.4 and later). */
    static final String LMSTUDIO_MODELS = "/api/v1/models";

    /** vllm-mlx's open /health: {@code status} healthy or unhealthy, with {@code model_loaded} and {@code engine_type}. */
    static boolean vllmMlxHealth(JsonNode health) {
        return health != null && health.path("model_loaded").isBoolean() && health.path("engine_type").isTextual()
                && health.path("status").asText("").endsWith("healthy");
    }

    /** Up to 5 model keys from LM Studio's list, the loaded ones first (those are the ones probes can use at once). */
    private static List<String> lmStudioModels(JsonNode root) {
        List<String> loaded = new ArrayList<>();
        List<String> other = new ArrayList<>();
        for (JsonNode m : root.path("models")) {
            if (!m.path("key").isTextual() || "embedding".equals(m.path("type").asText(""))) {
                continue;
            }
            (m.path("loaded_instances").size() > 0 ? loaded : other).add(m.path("key").asText());
        }
        loaded.addAll(other);
        return loaded.size() <= 5 ? loaded : new ArrayList<>(loaded.subList(0, 5));
    }

    private static HttpTransport.JsonReply get(URI base, String path) {
        return HttpTransport.json(base.resolve(path), null, null, CONNECT_TIMEOUT, REQUEST_DEADLINE,
                BoundedJson.Limits.SMALL);
    }

    private static JsonNode json(HttpTransport.JsonReply r) {
        return r == null || !r.ok() || r.body() == null || r.body().isMissingNode() ? null : r.body();
    }

    private static boolean hasAny(JsonNode array, String... keys) {
        for (JsonNode n : array) {
            for (String k : keys) {
                if (n.has(k)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Up to 5 values of {@code field} from the objects in {@code root[list]}. */
    private static List<String> names(JsonNode root, String list, String field) {
        List<String> out = new ArrayList<>();
        if (root == null) {
            return out;
        }
        for (JsonNode m : root.path(list)) {
            if (m.path(field).isTextual() && out.size() < 5) {
                out.add(m.path(field).asText());
            }
        }
        return out;
    }
}
