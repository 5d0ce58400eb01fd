package io.tailwatch.core.probe;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The fixed probe prompt: the same shape every time, about {@code tokens} tokens long (one short
 * common word is about one token), opened by a random nonce so no prompt cache can serve it, and
 * asking for output that runs to max_tokens.
 */
public final class PromptFactory {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String[] FILLER = {"the", "river", "runs", "past", "a", "small", "town", "and", "on", "into",
            "green", "hills", "where", "old", "trees", "stand", "in", "long", "rows", "by", "quiet", "roads"};
    static final String INSTRUCTION = "Count upward from one in English words, separated by spaces, and do not stop.";

    private PromptFactory() {
    }

    public static String nonce() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    public static String prompt(int tokens) {
        return prompt(tokens, nonce());
    }

    static String prompt(int tokens, String nonce) {
        StringBuilder sb = new StringBuilder(tokens * 6 + 128);
        sb.append("Probe ").append(nonce).append(". Background:");
        // The nonce (~8 tokens), the header and the instruction take about 24 tokens.
        int filler = Math.max(0, tokens - 24);
        for (int i = 0; i < filler; i++) {
            sb.append(' ').append(FILLER[i % FILLER.length]);
        }
        sb.append(". ").append(INSTRUCTION);
        return sb.toString();
    }
}
