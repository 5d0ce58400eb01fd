package io.tailwatch.cli;

import io.tailwatch.core.probe.EngineApi;
import java.util.Iterator;

/** The --api values (every {@link EngineApi}), for picocli's completion and ${COMPLETION-CANDIDATES} in help texts. */
final class EngineApiNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
        return EngineApi.names().iterator();
    }

    /** The API called {@code api}, or IllegalArgumentException naming {@code option} and the valid values. */
    static EngineApi parse(String option, String api) {
        return EngineApi.find(api).orElseThrow(() -> new IllegalArgumentException(option + ": must be "
                + EngineApi.choices() + ", got '" + io.tailwatch.core.logging.LogGuard.escape(String.valueOf(api), 40) + "'"));
    }
}
