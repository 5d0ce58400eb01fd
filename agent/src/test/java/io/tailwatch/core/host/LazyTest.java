package io.tailwatch.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class LazyTest {
    @Test
    void opensOnceOnFirstUse() throws IOException {
        int[] opened = {0};
        Lazy<String> l = Lazy.of("thing", () -> "v" + (++opened[0]));
        assertThat(opened[0]).isZero();
        assertThat(l.ifOpened()).isNull();
        assertThat(l.get()).isEqualTo("v1");
        assertThat(l.get()).isEqualTo("v1");
        assertThat(l.ifOpened()).isEqualTo("v1");
    }

    @Test
    void aMissingLibraryIsReportedByNameAndNotReloaded() {
        int[] attempts = {0};
        Lazy<String> l = Lazy.of("IOReport", () -> {
            attempts[0]++;
            throw new UnsatisfiedLinkError("image not found");
        });
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(l::get).isInstanceOf(IOException.class)
                    .hasMessage("IOReport unavailable: image not found");
        }
        assertThat(attempts[0]).isEqualTo(1);
        assertThat(l.getOrNull()).isNull();
    }

    @Test
    void everyCachedFailureCarriesTheOriginalCause() {
        IOException original = new IOException("group missing");
        Lazy<String> l = Lazy.of("IOReport", () -> {
            throw original;
        });
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(l::get).isInstanceOf(IOException.class).hasCause(original);
        }
    }

    @Test
    void retryingOpensAgainAfterTheGivenNumberOfFailedUses() throws IOException {
        int[] attempts = {0};
        Lazy<String> l = Lazy.retrying("subscription", () -> {
            if (++attempts[0] < 3) {
                throw new IOException("no channels yet");
            }
            return "ok";
        }, 2);
        assertThatThrownBy(l::get).hasMessageContaining("no channels yet"); // attempt 1
        assertThatThrownBy(l::get).hasMessageContaining("no channels yet"); // cached
        assertThatThrownBy(l::get).hasMessageContaining("no channels yet"); // cached
        assertThatThrownBy(l::get).hasMessageContaining("no channels yet"); // attempt 2
        assertThat(attempts[0]).isEqualTo(2);
        assertThatThrownBy(l::get).isInstanceOf(IOException.class);
        assertThatThrownBy(l::get).isInstanceOf(IOException.class);
        assertThat(l.get()).isEqualTo("ok"); // attempt 3
        assertThat(attempts[0]).isEqualTo(3);
    }

    @Test
    void anOpenerReturningNothingCountsAsUnavailable() {
        Lazy<String> l = Lazy.of("power status", () -> null);
        assertThatThrownBy(l::get).hasMessage("power status unavailable: not available on this machine");
    }
}
