package io.tailwatch.core.host.macos;

import java.util.List;
import java.util.function.Predicate;

/**
 * The native calls one IOReport subscription makes, with every CoreFoundation object as an opaque
 * handle (its address; 0 is NULL). {@link MacNativeIOReport} owns the subscription's lifecycle and
 * decides what is released when; the JNA implementation ({@link MacNativeIOReport.Jna}) only makes
 * the calls, so the lifecycle is tested on Linux with a recording implementation.
 */
interface IOReportCalls {
    /** {@code IOReportCopyChannelsInGroup(group, subgroup, 0, 0, 0)}: Copy rule, the caller releases it. */
    long copyChannelsInGroup(String group, String subgroup);

    /** The count of the {@code "IOReportChannels"} array in a channel or sample dictionary (Get rule). */
    int channelCount(long dictionary);

    /** {@code CFDictionaryCreateMutableCopy(NULL, 0, dictionary)}: Create rule, the caller releases it. */
    long createMutableCopy(long dictionary);

    /**
     * {@code IOReportCreateSubscription(NULL, channels, &out, 0, NULL)}: returns the subscription
     * (Create rule) and stores the out dictionary in {@code subscribedOut[0]}.
     */
    long createSubscription(long channels, long[] subscribedOut);

    /** {@code IOReportCreateSamples(subscription, channels, NULL)}: Create rule. */
    long createSamples(long subscription, long channels);

    /** {@code IOReportCreateSamplesDelta(previous, current, NULL)}: Create rule. */
    long createSamplesDelta(long previous, long current);

    /** Copies the wanted channels of a sample or delta into plain records (Get-rule reads only). */
    List<IOReportChannel> channels(long sample, Predicate<String> wanted, int max);

    /** {@code CFRelease}. */
    void release(long object);
}
