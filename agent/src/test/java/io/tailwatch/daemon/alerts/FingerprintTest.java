package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fingerprint is Alertmanager's (prometheus/common model.LabelSet.Fingerprint); AlertmanagerIT checks it against a running one. */
class FingerprintTest {
    @Test
    void emptyLabelSetIsTheFnvOffsetBasis() {
        assertThat(Fingerprint.of(Map.of())).isEqualTo("cbf29ce484222325");
    }

    @Test
    void oneLabelHashesNameSeparatorValueSeparator() {
        // FNV-1a 64 of the bytes "a" 0xff "b" 0xff, worked out by hand from the offset basis and prime.
        long h = 0xcbf29ce484222325L;
        for (int b : new int[] {'a', 0xff, 'b', 0xff}) {
            h = (h ^ b) * 0x100000001b3L;
        }
        assertThat(Fingerprint.of(Map.of("a", "b"))).isEqualTo(String.format("%016x", h));
    }

    @Test
    void labelOrderDoesNotMatterAndNamesSortAsBytes() {
        assertThat(Fingerprint.of(Map.of("b", "1", "a", "2"))).isEqualTo(Fingerprint.of(new java.util.TreeMap<>(Map.of("a", "2", "b", "1"))));
        assertThat(Fingerprint.of(Map.of("a", "1", "b", "2"))).isNotEqualTo(Fingerprint.of(Map.of("a", "2", "b", "1")));
    }
}
