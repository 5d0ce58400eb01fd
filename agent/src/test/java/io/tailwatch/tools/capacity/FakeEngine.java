package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** An in-process engine for orchestration tests: only probe() matters; it reports itself healthy. */
@FunctionalInterface
interface FakeEngine extends EngineClient {
    @Override
    ProbeResult probe(ProbeRequest request);

    @Override
    default EngineHealth health(Duration deadline) {
        return new EngineHealth(Instant.now(), true, false, "test", "openai", List.of(), true, null);
    }

    @Override
    default String defaultModel(Duration deadline) {
        return "m";
    }

    @Override
    default io.tailwatch.core.probe.EngineApi api() {
        return io.tailwatch.core.probe.EngineApi.OPENAI;
    }

    @Override
    default URI baseUri() {
        return URI.create("http://127.0.0.1:1");
    }
}
