package io.tailwatch.core.rules;

import java.util.Locale;

/** Rule severity, worst last; the label value is the lower-case name. */
public enum Severity {
    INFO, WARNING, CRITICAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
