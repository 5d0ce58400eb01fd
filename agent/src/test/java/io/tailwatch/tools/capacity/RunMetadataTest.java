package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.probe.PromptFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RunMetadataTest {
    @Test
    void the_prompt_hash_names_the_prompt_shape_not_its_nonce() throws Exception {
        // every prompt carries a fresh nonce, yet the same size hashes the same
        assertThat(PromptFactory.prompt(500)).isNotEqualTo(PromptFactory.prompt(500));
        assertThat(RunMetadata.promptHash(500)).isEqualTo(RunMetadata.promptHash(500)).hasSize(64).matches("[0-9a-f]+");
        assertThat(RunMetadata.promptHash(500)).isNotEqualTo(RunMetadata.promptHash(64));
        String masked = PromptFactory.prompt(64).replaceFirst("^Probe [0-9a-f]+\\.", "Probe <nonce>.");
        assertThat(masked).startsWith("Probe <nonce>.");
        assertThat(RunMetadata.promptHash(64)).isEqualTo(HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(masked.getBytes(StandardCharsets.UTF_8))));
    }
}
