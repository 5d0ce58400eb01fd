package io.tailwatch.core.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Hugging Face checkpoint on disk (what MLX engines load): its {@code config.json} gives the
 * attention shape, its {@code *.safetensors} files the weights' size. Found by directory, or by model
 * id in the local Hugging Face cache ({@code $HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else
 * {@code ~/.cache/huggingface/hub}; layout {@code models--ORG--NAME/snapshots/REVISION/}).
 *
 * <p>Attention kinds per layer: {@code layer_types} when the config lists them (sliding_attention,
 * full_attention, ...); else by family: Gemma 2 alternates sliding and full layers, starting with a
 * sliding one; Gemma 3 has one full layer every {@code sliding_window_pattern} (6); Mistral and Mixtral
 * slide in every layer when {@code sliding_window} is set; Qwen 2/3 slide only with
 * {@code use_sliding_window: true}, from layer {@code max_window_layers} on. Everything else is full
 * attention.
 *
 * @param source       the directory read
 * @param modelType    config model_type (of the text model for multimodal checkpoints)
 * @param layers       num_hidden_layers
 * @param kvHeads      num_key_value_heads (num_attention_heads when absent)
 * @param headDim      head_dim, or hidden_size / num_attention_heads
 * @param windows      per layer: 0 for full attention, else the sliding window in tokens
 * @param otherLayers  layers whose kind keeps no growing KV cache (e.g. linear attention), by index
 * @param dtype        torch_dtype / dtype (the activations' and so the KV cache's type), null when absent
 * @param quantization e.g. "4 bit, group 64" (MLX) or the quant_method, null when unquantized
 * @param weightsBytes total size of the safetensors files, null when there are none
 * @param contextLength max_position_embeddings, null when absent
 */
public record HfCheckpoint(Path source, String modelType, int layers, int kvHeads, int headDim, List<Integer> windows,
                           List<Integer> otherLayers, String dtype, String quantization, Long weightsBytes,
                           Long contextLength) {
    /** config.json larger than this is not a model config. */
    static final long MAX_CONFIG_BYTES = 4L << 20;
    static final Pattern MODEL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final ObjectMapper JSON = new ObjectMapper();

    public HfCheckpoint {
        windows = List.copyOf(windows);
        otherLayers = List.copyOf(otherLayers);
    }

    /** True when some layer keeps only a window: the per-context figures are then an estimate. */
    public boolean mixed() {
        return windows.stream().anyMatch(w -> w > 0) || !otherLayers.isEmpty();
    }

    public int slidingLayers() {
        return (int) windows.stream().filter(w -> w > 0).count();
    }

    /** Layers whose cache grows with the whole context (full attention). */
    public int fullLayers() {
        int n = 0;
        for (int i = 0; i < windows.size(); i++) {
            n += windows.get(i) == 0 && !otherLayers.contains(i) ? 1 : 0;
        }
        return n;
    }

    /** Bytes per element of the KV cache by config dtype: float32 4, 16-bit types 2; null when not stated. */
    public Double dtypeBytes() {
        if (dtype == null) {
            return null;
        }
        return switch (dtype.toLowerCase(Locale.ROOT)) {
            case "float32", "fp32", "f32" -> 4.0;
            case "float16", "fp16", "f16", "bfloat16", "bf16" -> 2.0;
            default -> null;
        };
    }

    /**
     * Resolves a checkpoint directory, or a model id in the Hugging Face cache. Throws
     * IllegalArgumentException naming what was looked for and where.
     */
    public static Path locate(String pathOrId, Map<String, String> env) {
        Path p = Path.of(pathOrId);
        if (Files.isDirectory(p)) {
            return p;
        }
        if (!MODEL_ID.matcher(pathOrId).matches()) {
            throw new IllegalArgumentException("--model " + pathOrId + ": no such directory, and not a model id of the form ORG/NAME");
        }
        Path hub = hubDir(env);
        Path repo = hub.resolve("models--" + pathOrId.replace("/", "--"));
        Path snapshots = repo.resolve("snapshots");
        if (!Files.isDirectory(snapshots)) {
            throw new IllegalArgumentException("--model " + pathOrId + ": not in the Hugging Face cache (looked for " + snapshots
                    + "); download it first, or give the checkpoint directory");
        }
        // The revision refs/main names, else the newest snapshot that has a config.json.
        try {
            Path ref = repo.resolve("refs").resolve("main");
            if (Files.isRegularFile(ref) && Files.size(ref) < 256) {
                Path named = snapshots.resolve(Files.readString(ref).trim());
                if (Files.isRegularFile(named.resolve("config.json"))) {
                    return named;
                }
            }
            List<Path> candidates = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(snapshots)) {
                for (Path s : ds) {
                    if (Files.isRegularFile(s.resolve("config.json"))) {
                        candidates.add(s);
                    }
                }
            }
            Optional<Path> newest = candidates.stream().max(Comparator.comparing(HfCheckpoint::modified));
            return newest.orElseThrow(() -> new IllegalArgumentException("--model " + pathOrId + ": no snapshot under "
                    + snapshots + " has a config.json"));
        } catch (IOException e) {
            throw new IllegalArgumentException("--model " + pathOrId + ": cannot read " + snapshots + ": " + e.getMessage());
        }
    }

    /** The hub cache directory: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub. */
    public static Path hubDir(Map<String, String> env) {
        String cache = env.get("HF_HUB_CACHE");
        if (cache != null && !cache.isBlank()) {
            return Path.of(cache);
        }
        String home = env.get("HF_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home, "hub");
        }
        return Path.of(System.getProperty("user.home"), ".cache", "huggingface", "hub");
    }

    /** Reads config.json and the safetensors sizes of a checkpoint directory. */
    public static HfCheckpoint read(Path dir) {
        Path file = dir.resolve("config.json");
        JsonNode root;
        try {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(file + ": missing (a Hugging Face checkpoint has a config.json)");
            }
            if (Files.size(file) > MAX_CONFIG_BYTES) {
                throw new IllegalArgumentException(file + ": larger than " + (MAX_CONFIG_BYTES >> 20) + " MiB, not a model config");
            }
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": not valid JSON: " + e.getMessage());
        }
        HfCheckpoint c = parse(root, file.toString(), dir);
        return new HfCheckpoint(dir, c.modelType, c.layers, c.kvHeads, c.headDim, c.windows, c.otherLayers, c.dtype,
                c.quantization, weightsBytes(dir), c.contextLength);
    }

    /** Parses a config.json tree; {@code where} names it in errors. Weights are not read here. */
    public static HfCheckpoint parse(JsonNode root, String where, Path dir) {
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(where + ": not a JSON object");
        }
        // Multimodal checkpoints (Gemma 3, Llava, ...) keep the language model's shape in text_config.
        JsonNode text = root.has("text_config") && root.get("text_config").isObject() ? root.get("text_config") : root;
        String modelType = str(text, "model_type", str(root, "model_type", null));
        int layers = positive(text, "num_hidden_layers", where);
        int heads = positive(text, "num_attention_heads", where);
        int kvHeads = text.hasNonNull("num_key_value_heads") ? positive(text, "num_key_value_heads", where) : heads;
        int headDim;
        if (text.hasNonNull("head_dim")) {
            headDim = positive(text, "head_dim", where);
        } else {
            int hidden = positive(text, "hidden_size", where);
            if (hidden % heads != 0) {
                throw new IllegalArgumentException(where + ": hidden_size " + hidden + " is not a multiple of num_attention_heads "
                        + heads + " and no head_dim is given");
            }
            headDim = hidden / heads;
        }
        List<Integer> windows = new ArrayList<>();
        List<Integer> other = new ArrayList<>();
        Integer window = text.hasNonNull("sliding_window") && text.get("sliding_window").canConvertToInt()
                && text.get("sliding_window").asInt() > 0 ? text.get("sliding_window").asInt() : null;
        String family = modelType == null ? "" : modelType.toLowerCase(Locale.ROOT);
        JsonNode types = text.get("layer_types");
        if (types != null && types.isArray()) {
            if (types.size() != layers) {
                throw new IllegalArgumentException(where + ": layer_types lists " + types.size() + " layers, num_hidden_layers is "
                        + layers);
            }
            for (int i = 0; i < layers; i++) {
                String t = types.get(i).asText("");
                if (t.equals("full_attention") || t.equals("attention")) {
                    windows.add(0);
                } else if (t.contains("sliding")) {
                    if (window == null) {
                        throw new IllegalArgumentException(where + ": layer " + i + " is " + t + " but sliding_window is not set");
                    }
                    windows.add(window);
                } else {
                    windows.add(0);
                    other.add(i);
                }
            }
        } else {
            for (int i = 0; i < layers; i++) {
                windows.add(slides(family, text, i, window) ? window : 0);
            }
        }
        String dtype = str(text, "torch_dtype", str(text, "dtype", str(root, "torch_dtype", str(root, "dtype", null))));
        String quant = quantization(root);
        Long ctx = text.hasNonNull("max_position_embeddings") && text.get("max_position_embeddings").canConvertToLong()
                ? text.get("max_position_embeddings").asLong() : null;
        return new HfCheckpoint(dir, modelType, layers, kvHeads, headDim, windows, other, dtype, quant, null, ctx);
    }

    /** Whether layer {@code i} keeps a sliding window, by family, when the config does not list layer types. */
    private static boolean slides(String family, JsonNode c, int i, Integer window) {
        if (window == null) {
            return false;
        }
        if (family.startsWith("gemma2")) {
            return i % 2 == 0;
        }
        if (family.startsWith("gemma3")) {
            int pattern = c.hasNonNull("sliding_window_pattern") ? c.get("sliding_window_pattern").asInt(6)
                    : c.hasNonNull("_sliding_window_pattern") ? c.get("_sliding_window_pattern").asInt(6) : 6;
            return pattern <= 0 || (i + 1) % pattern != 0;
        }
        if (family.startsWith("mistral") || family.startsWith("mixtral")) {
            return true;
        }
        if (family.startsWith("qwen")) {
            boolean use = c.path("use_sliding_window").asBoolean(false);
            int from = c.path("max_window_layers").asInt(0);
            return use && i >= from;
        }
        return false;
    }

    /** MLX: quantization {bits, group_size}; transformers: quantization_config.quant_method (and bits). */
    private static String quantization(JsonNode root) {
        JsonNode q = root.get("quantization");
        if (q != null && q.isObject() && q.has("bits")) {
            return q.get("bits").asInt() + " bit" + (q.has("group_size") ? ", group " + q.get("group_size").asInt() : "");
        }
        JsonNode qc = root.get("quantization_config");
        if (qc != null && qc.isObject()) {
            String m = str(qc, "quant_method", "quantized");
            return qc.has("bits") ? m + " " + qc.get("bits").asInt() + " bit" : m;
        }
        return null;
    }

    /** Sum of the *.safetensors files' sizes (symlinks into the cache's blobs followed); null when there are none. */
    static Long weightsBytes(Path dir) {
        long total = 0;
        int files = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.safetensors")) {
            for (Path p : ds) {
                if (Files.isRegularFile(p)) {
                    total += Files.size(p);
                    files++;
                }
            }
        } catch (IOException e) {
            return null;
        }
        return files == 0 ? null : total;
    }

    private static java.nio.file.attribute.FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    private static String str(JsonNode n, String key, String otherwise) {
        JsonNode v = n.get(key);
        return v != null && v.isTextual() ? v.asText() : otherwise;
    }

    private static int positive(JsonNode n, String key, String where) {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException(where + ": " + key + " is missing");
        }
        if (!v.canConvertToInt() || v.asInt() <= 0) {
            throw new IllegalArgumentException(where + ": " + key + " must be a positive integer, got " + v);
        }
        return v.asInt();
    }
}
