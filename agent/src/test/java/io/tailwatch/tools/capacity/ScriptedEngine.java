package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An in-process engine whose results are given in call order: the ladder's steps run one after
 * another, so the n-th call belongs to a known step. Fails loudly when called more often than scripted.
 */
final class ScriptedEngine implements FakeEngine {
    private final Deque<ProbeResult> script = new ArrayDeque<>();
    final List<ProbeRequest> requests = new ArrayList<>();

    ScriptedEngine ok(double... e2eSeconds) {
        for (double s : e2eSeconds) {
            script.add(ok(s, 120));
        }
        return this;
    }

    ScriptedEngine fail(String type, int times) {
        for (int i = 0; i < times; i++) {
            script.add(failed(type));
        }
        return this;
    }

    @Override
    public synchronized ProbeResult probe(ProbeRequest request) {
        requests.add(request);
        ProbeResult r = script.poll();
        if (r == null) {
            throw new AssertionError("engine called more often than scripted (" + requests.size() + " calls)");
        }
        return r;
    }

    static ProbeResult ok(double e2e, long tokens) {
        double ttft = Math.min(0.25, e2e / 10);
        return new ProbeResult(true, null, null, Instant.now(), "m", 0.01, ttft, e2e, tokens / (e2e - ttft), tokens, 500L,
                "usage", null, null, null, null, List.of());
    }

    static ProbeResult failed(String type) {
        return new ProbeResult(false, type, "HTTP 503 from engine", Instant.now(), "m", null, null, 0.05, null, null, null,
                null, null, null, null, null, List.of());
    }
}
