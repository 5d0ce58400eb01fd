package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The subscription's CoreFoundation lifecycle on recorded calls: which dictionary each call gets,
 * and that every object the agent owns is released exactly once and nothing else is released.
 */
class IOReportSubscriptionTest {
    /** Hands out numbered handles and records every call; ownership per the Create/Copy rule. */
    static final class RecordingCalls implements IOReportCalls {
        long next = 100;
        final Map<Long, String> owned = new HashMap<>();
        final List<Long> released = new ArrayList<>();
        final List<Long> samplesGot = new ArrayList<>();
        long subscribedOut;
        long channelsGivenToSubscription;
        int channelCount = 3;
        boolean groupExists = true;
        boolean refuseSubscription;

        private long make(String what) {
            long h = next++;
            owned.put(h, what);
            return h;
        }

        @Override
        public long copyChannelsInGroup(String group, String subgroup) {
            return groupExists ? make("channels in group") : 0;
        }

        @Override
        public int channelCount(long dictionary) {
            return channelCount;
        }

        @Override
        public long createMutableCopy(long dictionary) {
            return make("mutable copy");
        }

        @Override
        public long createSubscription(long channels, long[] subscribedOut) {
            channelsGivenToSubscription = channels;
            // The out dictionary: not the caller's to release, per macmon and mactop.
            this.subscribedOut = next++;
            subscribedOut[0] = this.subscribedOut;
            return refuseSubscription ? 0 : make("subscription");
        }

        @Override
        public long createSamples(long subscription, long channels) {
            samplesGot.add(channels);
            return make("sample");
        }

        @Override
        public long createSamplesDelta(long previous, long current) {
            assertThat(released).as("both samples are alive while the delta is taken").doesNotContain(previous, current);
            return make("delta");
        }

        @Override
        public List<IOReportChannel> channels(long sample, Predicate<String> wanted, int max) {
            return List.of(IOReportChannel.simple(EnergyModel.GROUP, "CPU Energy", "mJ", 1000));
        }

        @Override
        public void release(long object) {
            assertThat(owned).as("released %d, which the agent does not own", object).containsKey(object);
            assertThat(released).as("released %d twice", object).doesNotContain(object);
            released.add(object);
        }

        List<Long> leaked() {
            return owned.keySet().stream().filter(h -> !released.contains(h)).sorted().toList();
        }
    }

    @Test
    void samplesWithTheChannelDictionaryGivenToTheSubscriptionAndReleasesWhatItOwns() throws Exception {
        RecordingCalls calls = new RecordingCalls();
        AtomicLong clock = new AtomicLong();
        MacNativeIOReport r = MacNativeIOReport.open(calls, EnergyModel.GROUP, null, n -> true, clock::get);
        // The group's channel list is released once copied; the copy lives on.
        assertThat(calls.released).containsExactly(100L);
        long channels = calls.channelsGivenToSubscription;
        assertThat(calls.owned.get(channels)).isEqualTo("mutable copy");

        assertThat(r.next()).isNull();
        clock.set(1_500_000_000L);
        IOReportDelta d = r.next();
        assertThat(d.seconds()).isCloseTo(1.5, within(1e-12));
        clock.set(2_500_000_000L);
        r.next();
        // Every sample is taken with the dictionary handed to IOReportCreateSubscription, never the
        // subscription's out dictionary.
        assertThat(calls.samplesGot).hasSize(3).containsOnly(channels).doesNotContain(calls.subscribedOut);
        // While running: the copy, the subscription and the newest sample are alive; both deltas
        // and the two older samples are released.
        assertThat(calls.leaked()).hasSize(3);

        r.close();
        r.close();
        assertThat(calls.leaked()).isEmpty();
        assertThat(calls.released).doesNotContain(calls.subscribedOut);
        assertThatThrownBy(r::next).hasMessageContaining("closed");
    }

    @Test
    void aMissingOrEmptyGroupIsGroupMissingAndLeaksNothing() {
        RecordingCalls none = new RecordingCalls();
        none.groupExists = false;
        assertThatThrownBy(() -> MacNativeIOReport.open(none, "Energy Model", null, n -> true, System::nanoTime))
                .isInstanceOf(IOReportGroupMissing.class);
        RecordingCalls empty = new RecordingCalls();
        empty.channelCount = 0;
        assertThatThrownBy(() -> MacNativeIOReport.open(empty, "GPU Stats", null, n -> true, System::nanoTime))
                .isInstanceOf(IOReportGroupMissing.class);
        assertThat(empty.leaked()).isEmpty();
    }

    @Test
    void aRefusedSubscriptionIsAFailureAndLeaksNothing() {
        RecordingCalls calls = new RecordingCalls();
        calls.refuseSubscription = true;
        assertThatThrownBy(() -> MacNativeIOReport.open(calls, "Energy Model", null, n -> true, System::nanoTime))
                .isNotInstanceOf(IOReportGroupMissing.class).hasMessageContaining("refused");
        assertThat(calls.leaked()).isEmpty();
    }
}
