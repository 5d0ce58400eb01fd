package io.tailwatch.testing;

import io.tailwatch.core.probe.PromptFactory;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a small, deterministic llama-architecture model in GGUF (version 3) for the real-engine tests:
 * made here, never downloaded. Same shape, same bytes.
 *
 * <p>Vocabulary: a SentencePiece-style ("llama") tokenizer with {@code <unk>}, {@code <s>}, {@code </s>},
 * the 256 byte tokens (every text tokenizes), the word boundary plus {@code a}..{@code z}, and the words
 * of the probe prompt ({@link PromptFactory}) as whole tokens, so a prompt of N "tokens" is about N
 * tokens here too and prompt evaluation stays short. The chat template is ChatML (its markers are control
 * tokens), so {@code /v1/chat/completions} and {@code /completion} both work.
 *
 * <p>Weights: pseudo-random from a fixed seed, except that hidden dimension 0 is held at 1.0 (every
 * embedding has it; no attention or feed-forward output writes to it), and the output row of every token
 * other than the normal ones (the boundary, the letters and the words) has -10,000 in that dimension and 0
 * elsewhere. After the final RMS norm that dimension is positive, so the end token, the control tokens and
 * the byte tokens always get a logit far below every normal token's: generation never ends early and the
 * text is plain ASCII.
 */
public final class TinyGguf {
    /** Bump when the bytes written change, so cached files are not reused. */
    private static final int FORMAT = 2;
    private static final int ALIGN = 32;
    private static final int T_F32 = 0;
    private static final int T_F16 = 1;
    private static final float SUPPRESS = -10_000f;

    /** The model's dimensions. */
    public record Shape(int embd, int layers, int heads, int ff, int ctx) {
        /** Decodes at roughly a hundred tokens per second on one core. */
        public static final Shape DEFAULT = new Shape(512, 4, 8, 1408, 4096);

        String key() {
            return embd + "x" + layers + "h" + heads + "f" + ff + "c" + ctx + "v" + FORMAT + "-"
                    + Integer.toHexString(vocabulary().hashCode());
        }
    }

    private static final String CHAT_TEMPLATE = "{% for message in messages %}"
            + "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
            + "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

    private TinyGguf() {
    }

    /**
     * The model of this shape in the cache directory ({@code TAILWATCH_CACHE}, else
     * {@code ~/.cache/tailwatch}), written on first use (to a temporary file, then moved into place).
     */
    public static Path cached(Shape shape) throws IOException {
        String base = System.getenv("TAILWATCH_CACHE");
        Path dir = (base != null && !base.isEmpty() ? Path.of(base)
                : Path.of(System.getProperty("user.home"), ".cache", "tailwatch")).resolve("models");
        Files.createDirectories(dir);
        Path file = dir.resolve("tiny-llama-" + shape.key() + ".gguf");
        if (!Files.isRegularFile(file)) {
            Path tmp = Files.createTempFile(dir, ".tiny-llama", ".part");
            try {
                write(tmp, shape);
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return file;
    }

    /**
     * Token texts: the specials, the 256 bytes, the word boundary, a..z, then each word of the probe
     * prompt after a word boundary, with every prefix of it: SentencePiece merges two adjacent pieces
     * only when their joint text is a token, so "\u2581the" is reached through "\u2581t" and "\u2581th".
     */
    static List<String> vocabulary() {
        Set<String> tokens = new LinkedHashSet<>(List.of("<unk>", "<s>", "</s>"));
        for (int b = 0; b < 256; b++) {
            tokens.add(String.format("<0x%02X>", b));
        }
        tokens.add("\u2581");
        for (char c = 'a'; c <= 'z'; c++) {
            tokens.add(String.valueOf(c));
        }
        List<String> words = new ArrayList<>(promptWords());
        words.addAll(List.of("user", "assistant")); // the chat template's roles
        for (String w : words) {
            String piece = "\u2581" + w;
            for (int end = 2; end <= piece.length(); end++) {
                tokens.add(piece.substring(0, end));
            }
        }
        tokens.addAll(CONTROL);
        return List.copyOf(tokens);
    }

    /**
     * The chat template's markers, last in the vocabulary as control tokens: the server reads each as
     * one token in a templated prompt, and generation never produces them.
     */
    private static final List<String> CONTROL = List.of("<|im_start|>", "<|im_end|>");

    /** GGUF token type of token {@code i} of {@code n}: 1 normal, 2 unknown, 3 control, 6 byte. */
    private static int tokenType(int i, int n) {
        return i == 0 ? 2 : i < 3 || i >= n - CONTROL.size() ? 3 : i < FIRST_TEXT_TOKEN ? 6 : 1;
    }

    /**
     * The words of the probe prompt, in order of first use: its header words and everything after
     * "Background:" (the nonce, random, is left out, so the list is the same on every call).
     */
    static List<String> promptWords() {
        String prompt = PromptFactory.prompt(256);
        Set<String> words = new LinkedHashSet<>(List.of("Probe", "Background"));
        for (String w : prompt.substring(prompt.indexOf("Background:") + "Background:".length()).split("[^A-Za-z]+")) {
            if (!w.isEmpty()) {
                words.add(w);
            }
        }
        return List.copyOf(words);
    }

    /** The end token's id. */
    public static final int EOS = 2;

    /** The first token id that generation may produce (the word boundary); later ids are letters and words, then the markers. */
    static final int FIRST_TEXT_TOKEN = 3 + 256;

    public static void write(Path file, Shape s) throws IOException {
        if (s.embd % s.heads != 0) {
            throw new IllegalArgumentException("embd " + s.embd + " is not a multiple of heads " + s.heads);
        }
        List<String> vocab = vocabulary();
        int nVocab = vocab.size();
        List<Tensor> tensors = new ArrayList<>();
        tensors.add(new Tensor("token_embd.weight", T_F16, s.embd, nVocab));
        for (int l = 0; l < s.layers; l++) {
            String p = "blk." + l + ".";
            tensors.add(new Tensor(p + "attn_norm.weight", T_F32, s.embd));
            tensors.add(new Tensor(p + "attn_q.weight", T_F16, s.embd, s.embd));
            tensors.add(new Tensor(p + "attn_k.weight", T_F16, s.embd, s.embd));
            tensors.add(new Tensor(p + "attn_v.weight", T_F16, s.embd, s.embd));
            tensors.add(new Tensor(p + "attn_output.weight", T_F16, s.embd, s.embd));
            tensors.add(new Tensor(p + "ffn_norm.weight", T_F32, s.embd));
            tensors.add(new Tensor(p + "ffn_gate.weight", T_F16, s.embd, s.ff));
            tensors.add(new Tensor(p + "ffn_up.weight", T_F16, s.embd, s.ff));
            tensors.add(new Tensor(p + "ffn_down.weight", T_F16, s.ff, s.embd));
        }
        tensors.add(new Tensor("output_norm.weight", T_F32, s.embd));
        tensors.add(new Tensor("output.weight", T_F16, s.embd, nVocab));

        try (OutputStream raw = Files.newOutputStream(file); Out out = new Out(new BufferedOutputStream(raw, 1 << 16))) {
            out.u32(0x46554747); // "GGUF"
            out.u32(3);
            out.u64(tensors.size());
            List<Runnable> kv = new ArrayList<>();
            kv.add(() -> out.kvString("general.architecture", "llama"));
            kv.add(() -> out.kvString("general.name", "tailwatch-tiny"));
            kv.add(() -> out.kvU32("general.file_type", 1)); // mostly F16
            kv.add(() -> out.kvU32("general.alignment", ALIGN));
            kv.add(() -> out.kvU32("llama.context_length", s.ctx));
            kv.add(() -> out.kvU32("llama.embedding_length", s.embd));
            kv.add(() -> out.kvU32("llama.block_count", s.layers));
            kv.add(() -> out.kvU32("llama.feed_forward_length", s.ff));
            kv.add(() -> out.kvU32("llama.attention.head_count", s.heads));
            kv.add(() -> out.kvU32("llama.attention.head_count_kv", s.heads));
            kv.add(() -> out.kvF32("llama.attention.layer_norm_rms_epsilon", 1e-5f));
            kv.add(() -> out.kvU32("llama.rope.dimension_count", s.embd / s.heads));
            kv.add(() -> out.kvF32("llama.rope.freq_base", 10000f));
            kv.add(() -> out.kvU32("llama.vocab_size", nVocab));
            kv.add(() -> out.kvString("tokenizer.ggml.model", "llama"));
            kv.add(() -> {
                out.key("tokenizer.ggml.tokens");
                out.u32(9);
                out.u32(8);
                out.u64(vocab.size());
                vocab.forEach(out::str);
            });
            kv.add(() -> {
                out.key("tokenizer.ggml.scores");
                out.u32(9);
                out.u32(6);
                out.u64(vocab.size());
                for (int i = 0; i < vocab.size(); i++) {
                    out.f32(i < FIRST_TEXT_TOKEN ? 0f : -(i - FIRST_TEXT_TOKEN));
                }
            });
            kv.add(() -> {
                out.key("tokenizer.ggml.token_type");
                out.u32(9);
                out.u32(5);
                out.u64(vocab.size());
                for (int i = 0; i < vocab.size(); i++) {
                    out.u32(tokenType(i, vocab.size()));
                }
            });
            kv.add(() -> out.kvU32("tokenizer.ggml.unknown_token_id", 0));
            kv.add(() -> out.kvU32("tokenizer.ggml.bos_token_id", 1));
            kv.add(() -> out.kvU32("tokenizer.ggml.eos_token_id", EOS));
            kv.add(() -> out.kvBool("tokenizer.ggml.add_bos_token", true));
            kv.add(() -> out.kvBool("tokenizer.ggml.add_eos_token", false));
            kv.add(() -> out.kvString("tokenizer.chat_template", CHAT_TEMPLATE));
            out.u64(kv.size());
            kv.forEach(Runnable::run);

            long offset = 0;
            for (Tensor t : tensors) {
                out.str(t.name);
                out.u32(t.dims.length);
                for (long d : t.dims) {
                    out.u64(d);
                }
                out.u32(t.type);
                out.u64(offset);
                offset = align(offset + t.bytes());
            }
            out.pad();
            for (Tensor t : tensors) {
                writeData(out, t, s, vocab.size());
                out.pad();
            }
        }
    }

    private static void writeData(Out out, Tensor t, Shape s, int nVocab) {
        long rows = t.dims.length == 1 ? 1 : t.dims[1];
        int cols = (int) t.dims[0];
        Random rnd = new Random(t.name);
        float scale = (float) Math.sqrt(3.0 / cols);
        ByteBuffer row = ByteBuffer.allocate(cols * (t.type == T_F16 ? 2 : 4)).order(ByteOrder.LITTLE_ENDIAN);
        for (long r = 0; r < rows; r++) {
            row.clear();
            for (int c = 0; c < cols; c++) {
                float v;
                if (t.type == T_F32) {
                    v = 1f; // norm weights
                } else if (t.name.equals("token_embd.weight")) {
                    v = c == 0 ? 1f : 0.1f * rnd.next();
                } else if (t.name.equals("output.weight")) {
                    boolean allowed = tokenType((int) r, nVocab) == 1;
                    v = allowed ? (c == 0 ? 0f : scale * rnd.next()) : (c == 0 ? SUPPRESS : 0f);
                } else if (r == 0 && (t.name.endsWith("attn_output.weight") || t.name.endsWith("ffn_down.weight"))) {
                    v = 0f; // nothing writes to dimension 0 of the residual stream
                } else {
                    v = scale * rnd.next();
                }
                if (t.type == T_F16) {
                    row.putShort(half(v));
                } else {
                    row.putFloat(v);
                }
            }
            out.bytes(row.array(), row.position());
        }
    }

    /** IEEE half precision, round half up; values below the smallest normal become zero. */
    static short half(float f) {
        int b = Float.floatToIntBits(f);
        int sign = (b >>> 16) & 0x8000;
        int exp = ((b >>> 23) & 0xff) - 127 + 15;
        int mant = b & 0x7fffff;
        if (exp <= 0) {
            return (short) sign;
        }
        if (exp >= 31) {
            return (short) (sign | 0x7c00);
        }
        int h = sign | (exp << 10) | (mant >>> 13);
        if ((mant & 0x1000) != 0) {
            h++;
        }
        return (short) h;
    }

    private static long align(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }

    private record Tensor(String name, int type, long... dims) {
        long bytes() {
            long n = 1;
            for (long d : dims) {
                n *= d;
            }
            return n * (type == T_F16 ? 2 : 4);
        }
    }

    /** SplitMix64 seeded from the tensor's name: uniform in [-1, 1). */
    private static final class Random {
        private long state;

        Random(String seed) {
            state = 0x9E3779B97F4A7C15L ^ seed.hashCode();
        }

        float next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            return (float) ((z >>> 40) / (double) (1L << 24) * 2.0 - 1.0);
        }
    }

    /** Little-endian GGUF primitives over a stream, counting bytes for the alignment padding. */
    private static final class Out implements AutoCloseable {
        private final OutputStream out;
        private final ByteBuffer buf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        private long written;

        Out(OutputStream out) {
            this.out = out;
        }

        void bytes(byte[] b, int len) {
            try {
                out.write(b, 0, len);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            written += len;
        }

        private void prim(int len) {
            bytes(buf.array(), len);
            buf.clear();
        }

        void u32(int v) {
            buf.putInt(v);
            prim(4);
        }

        void u64(long v) {
            buf.putLong(v);
            prim(8);
        }

        void f32(float v) {
            buf.putFloat(v);
            prim(4);
        }

        void str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u64(b.length);
            bytes(b, b.length);
        }

        void key(String k) {
            str(k);
        }

        void kvString(String k, String v) {
            key(k);
            u32(8);
            str(v);
        }

        void kvU32(String k, int v) {
            key(k);
            u32(4);
            u32(v);
        }

        void kvF32(String k, float v) {
            key(k);
            u32(6);
            f32(v);
        }

        void kvBool(String k, boolean v) {
            key(k);
            u32(7);
            bytes(new byte[] {(byte) (v ? 1 : 0)}, 1);
        }

        void pad() {
            int n = (int) (align(written) - written);
            bytes(new byte[n], n);
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
