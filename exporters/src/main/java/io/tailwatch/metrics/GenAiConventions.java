package io.tailwatch.metrics;

import java.util.Locale;

/**
 * Which names the GenAI client metrics go out under, chosen as the OpenTelemetry migration rule for
 * experimental conventions says, through {@code OTEL_SEMCONV_STABILITY_OPT_IN} (a comma-separated list):
 * without {@code gen_ai_latest_experimental} the agent keeps the names of semantic conventions 1.41.0, the last
 * release carrying the GenAI conventions; {@code gen_ai_latest_experimental} switches to the current names of
 * the semantic-conventions-genai repository; {@code gen_ai_latest_experimental/dup} emits both (the form to
 * migrate dashboards with). The /dup form wins when both are listed, and every other value in the list (another
 * category's opt-in, a misspelling) is ignored, as the conventions' migration guides say of values an
 * instrumentation does not know. Both exporters read the same hub, so /metrics follows the choice as OTLP does.
 */
public enum GenAiConventions {
    /** Semantic conventions 1.41.0 names only (the default). */
    V1_41(true, false),
    /** The semantic-conventions-genai names only. */
    LATEST(false, true),
    /** Both sets. */
    DUP(true, true);

    public static final String VARIABLE = "OTEL_SEMCONV_STABILITY_OPT_IN";
    static final String LATEST_VALUE = "gen_ai_latest_experimental";

    private final boolean v141;
    private final boolean latest;

    GenAiConventions(boolean v141, boolean latest) {
        this.v141 = v141;
        this.latest = latest;
    }

    /** Whether the 1.41.0 names are emitted. */
    public boolean v141() {
        return v141;
    }

    /** Whether the semantic-conventions-genai names are emitted. */
    public boolean latest() {
        return latest;
    }

    /** The choice for a value of {@code OTEL_SEMCONV_STABILITY_OPT_IN} (null or blank: the default). */
    public static GenAiConventions from(String optIn) {
        if (optIn == null) {
            return V1_41;
        }
        boolean latest = false;
        for (String v : optIn.split(",")) {
            String t = v.strip().toLowerCase(Locale.ROOT);
            if (t.equals(LATEST_VALUE + "/dup")) {
                return DUP;
            }
            latest |= t.equals(LATEST_VALUE);
        }
        return latest ? LATEST : V1_41;
    }
}
