package io.tailwatch.cli;

import io.tailwatch.core.units.Units;
import java.time.Duration;
import picocli.CommandLine;

/** Command-line durations in the config's units: 250ms, 5s, 2m30s. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Units.duration(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
