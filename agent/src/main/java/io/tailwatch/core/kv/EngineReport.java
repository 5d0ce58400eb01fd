package io.tailwatch.core.kv;

import java.util.List;

/**
 * What a serving engine reports about the model it runs, as far as sizing its KV cache goes (a llama.cpp
 * server's /props and /v1/models). The caller that asked the engine fills it in; a field the engine did
 * not send is null, never 0.
 *
 * @param modelPath      the model file the engine loaded
 * @param contextPerSlot the context of one slot
 * @param contextTotal   the whole context the engine allocated, when it says so itself
 * @param totalSlots     how many slots share the context
 * @param contextTrain   the context the model was trained for
 * @param weightsBytes   the weights' size
 * @param missing        what could not be read, one sentence each
 */
public record EngineReport(String modelPath, Long contextPerSlot, Long contextTotal, Integer totalSlots, Long contextTrain,
                           Long weightsBytes, List<String> missing) {
    public EngineReport {
        missing = List.copyOf(missing);
    }

    /** The whole context the engine allocated: its own total, else per slot x slots, else one slot's (null when unknown). */
    public Long servedContext() {
        if (contextTotal != null) {
            return contextTotal;
        }
        if (contextPerSlot != null && totalSlots != null) {
            return Math.multiplyExact(contextPerSlot, (long) totalSlots);
        }
        return contextPerSlot;
    }

    /** Whether {@link #servedContext} was worked out from the slots rather than reported. */
    public boolean servedContextDerived() {
        return contextTotal == null && servedContext() != null;
    }
}
