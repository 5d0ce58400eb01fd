package io.tailwatch.core.rules;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The state of an alert instance. The label (the lower-case name) is what the API, the webhook, the log
 * and the status screen show.
 */
public enum AlertState {
    /** Its condition holds, not yet for the rule's {@code for}. */
    PENDING,
    FIRING,
    /** It was firing and its condition stopped holding; listed for a while. */
    RESOLVED,
    /** Only in transitions: no alert, or a pending alert whose condition stopped holding before it fired. */
    INACTIVE;

    private final String label = name().toLowerCase(Locale.ROOT);

    @JsonValue
    public String label() {
        return label;
    }

    /** The state with this label, or null when there is none. */
    public static AlertState of(String label) {
        for (AlertState s : values()) {
            if (s.label.equals(label)) {
                return s;
            }
        }
        return null;
    }
}
