package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.LoadedModel;
import io.tailwatch.core.probe.ModelFacts;
import java.time.Duration;

/**
 * What the engine says about itself and the model: version, digest, format and quantization. All
 * through the engine client (which alone speaks the engine's protocol); each figure is null when the
 * engine does not tell.
 */
public record EngineFacts(String version, String provider, String modelDigest, String modelFormat,
                          String quantization) {

    public static final EngineFacts UNKNOWN = new EngineFacts(null, null, null, null, null);

    public static EngineFacts ask(EngineClient client, String model, Duration deadline) {
        EngineHealth h = client.health(deadline);
        String digest = null;
        if (model != null) {
            for (LoadedModel m : h.models()) {
                if (model.equals(m.name())) {
                    digest = m.digest();
                }
            }
        }
        ModelFacts f = model == null ? ModelFacts.UNKNOWN : client.modelFacts(model, deadline);
        return new EngineFacts(h.version(), h.provider(), digest != null ? digest : f.digest(), f.format(),
                f.quantization());
    }
}
