package io.tailwatch.cli;

import io.tailwatch.core.probe.EngineApi;
import java.util.Iterator;
import picocli.CommandLine;

/**
 * The --api values (every {@link EngineApi}): picocli's completion candidates (${COMPLETION-CANDIDATES} in
 * help texts) and the converter that refuses any other value (a usage error, exit code 2).
 */
final class EngineApiNames implements Iterable<String>, CommandLine.ITypeConverter<String> {
    @Override
    public Iterator<String> iterator() {
        return EngineApi.names().iterator();
    }

    @Override
    public String convert(String value) {
        try {
            return parse("--api", value).wireName();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** The API called {@code api}, or IllegalArgumentException naming {@code option} and the valid values. */
    static EngineApi parse(String option, String api) {
        return EngineApi.find(api).orElseThrow(() -> new IllegalArgumentException(option + ": must be "
                + EngineApi.choices() + ", got '" + io.tailwatch.core.logging.LogGuard.escape(String.valueOf(api), 40) + "'"));
    }
}
