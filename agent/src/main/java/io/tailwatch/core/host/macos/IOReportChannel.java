package io.tailwatch.core.host.macos;

import java.util.List;

/**
 * One IOReport channel of a sample (or of a delta between two samples), copied out of the
 * CoreFoundation dictionary into plain Java. Simple channels carry {@code value}; state channels
 * carry {@code states} (name and residency each). {@code unit} is the channel's unit label, possibly
 * empty.
 */
public record IOReportChannel(String group, String subgroup, String name, String unit, long value,
                              List<State> states) {
    public IOReportChannel {
        group = group == null ? "" : group;
        subgroup = subgroup == null ? "" : subgroup;
        name = name == null ? "" : name;
        unit = unit == null ? "" : unit.strip();
        states = states == null ? List.of() : List.copyOf(states);
    }

    /** What IOReport writes into a channel that has no value (an empty channel), INT64_MIN. */
    public static final long NO_VALUE = Long.MIN_VALUE;

    /** Whether the channel carries a value: IOReport's INT64_MIN fill is none. */
    public boolean hasValue() {
        return value != NO_VALUE;
    }

    public static IOReportChannel simple(String group, String name, String unit, long value) {
        return new IOReportChannel(group, "", name, unit, value, List.of());
    }

    public record State(String name, long residency) {
    }
}
