package io.tailwatch.metrics;

/**
 * One allowed value of an enumerated attribute, declared once in {@link AttrValues}: it knows the
 * attribute key it belongs to, so a value can only be published, selected or read under its own key,
 * and a misspelt value is a compile error rather than a series that is silently absent. Implemented
 * by the enums of {@link AttrValues} only.
 */
public interface AttrValue {
    /** The attribute key this value belongs to (an {@link AttrKeys} constant). */
    default String key() {
        return AttrValues.key(((Enum<?>) this).getDeclaringClass());
    }

    /** The value as exported, e.g. {@code used}: the enum constant's name in lower case. */
    default String value() {
        return AttrValues.lower((Enum<?>) this);
    }
}
