package io.tailwatch.metrics;

/**
 * One allowed value of an enumerated attribute, declared once in {@link AttrValues}: it knows the
 * attribute key it belongs to, so a value can only be published, selected or read under its own key,
 * and a misspelt value is a compile error rather than a series that is silently absent.
 */
public interface AttrValue {
    /** The attribute key this value belongs to (an {@link AttrKeys} constant). */
    String key();

    /** The value as exported, e.g. {@code used}. */
    String value();
}
