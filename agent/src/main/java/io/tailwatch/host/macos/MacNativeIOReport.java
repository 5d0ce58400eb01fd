package io.tailwatch.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation.CFAllocatorRef;
import com.sun.jna.platform.mac.CoreFoundation.CFArrayRef;
import com.sun.jna.platform.mac.CoreFoundation.CFDictionaryRef;
import com.sun.jna.platform.mac.CoreFoundation.CFIndex;
import com.sun.jna.platform.mac.CoreFoundation.CFMutableDictionaryRef;
import com.sun.jna.platform.mac.CoreFoundation.CFStringRef;
import com.sun.jna.platform.mac.CoreFoundation.CFTypeRef;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * One long-lived subscription to an IOReport channel group (private {@code libIOReport.dylib},
 * mapped here because no library maps it). Every Create/Copy result is released: the channel
 * dictionaries when the subscription is made, the previous sample when the next replaces it, each
 * delta after it is copied into plain {@link IOReportChannel} records, and the subscription itself
 * on close. Only channels whose name passes the filter are read further, to keep a sample cheap.
 */
public final class MacNativeIOReport implements IOReportSource {
    static final int FORMAT_SIMPLE = 1;
    static final int FORMAT_STATE = 2;

    interface IOReport extends Library {
        IOReport INSTANCE = Native.load("/usr/lib/libIOReport.dylib", IOReport.class);

        CFDictionaryRef IOReportCopyChannelsInGroup(CFStringRef group, CFStringRef subgroup, long a, long b, long c);

        Pointer IOReportCreateSubscription(Pointer a, CFMutableDictionaryRef channels, PointerByReference subscribed,
                                           long channelId, CFTypeRef b);

        CFDictionaryRef IOReportCreateSamples(Pointer subscription, CFMutableDictionaryRef channels, CFTypeRef a);

        CFDictionaryRef IOReportCreateSamplesDelta(CFDictionaryRef previous, CFDictionaryRef current, CFTypeRef a);

        int IOReportChannelGetFormat(CFDictionaryRef channel);

        long IOReportSimpleGetIntegerValue(CFDictionaryRef channel, int index);

        CFStringRef IOReportChannelGetGroup(CFDictionaryRef channel);

        CFStringRef IOReportChannelGetSubGroup(CFDictionaryRef channel);

        CFStringRef IOReportChannelGetChannelName(CFDictionaryRef channel);

        CFStringRef IOReportChannelGetUnitLabel(CFDictionaryRef channel);

        int IOReportStateGetCount(CFDictionaryRef channel);

        CFStringRef IOReportStateGetNameForIndex(CFDictionaryRef channel, int index);

        long IOReportStateGetResidency(CFDictionaryRef channel, int index);
    }

    /** The one CoreFoundation call jna-platform lacks. */
    interface CoreFoundationCopy extends Library {
        CoreFoundationCopy INSTANCE = Native.load("CoreFoundation", CoreFoundationCopy.class);

        CFMutableDictionaryRef CFDictionaryCreateMutableCopy(CFAllocatorRef allocator, CFIndex capacity,
                                                            CFDictionaryRef dict);
    }

    /** Bounds one delta: Energy Model has tens of channels; more means something is wrong. */
    static final int MAX_CHANNELS = 4096;

    private static final CFStringRef CHANNELS_KEY = CFStringRef.createCFString("IOReportChannels");

    private final IOReport lib;
    private final String group;
    private final Predicate<String> wanted;
    private final CFTypeRef subscription;
    private final CFMutableDictionaryRef desired;
    private final CFMutableDictionaryRef subscribed;
    private CFDictionaryRef previous;
    private long previousNanos;
    private boolean closed;

    private MacNativeIOReport(IOReport lib, String group, Predicate<String> wanted, CFTypeRef subscription,
                              CFMutableDictionaryRef desired, CFMutableDictionaryRef subscribed) {
        this.lib = lib;
        this.group = group;
        this.wanted = wanted;
        this.subscription = subscription;
        this.desired = desired;
        this.subscribed = subscribed;
    }

    /** Subscribes to a group (and optionally one subgroup); fails when the group has no channels. */
    public static MacNativeIOReport open(String group, String subgroup, Predicate<String> wanted) throws IOException {
        IOReport lib = IOReport.INSTANCE;
        CFStringRef g = CFStringRef.createCFString(group);
        CFStringRef sg = subgroup == null ? null : CFStringRef.createCFString(subgroup);
        CFDictionaryRef channels = null;
        CFMutableDictionaryRef desired = null;
        try {
            channels = lib.IOReportCopyChannelsInGroup(g, sg, 0, 0, 0);
            if (channels == null || channels.getPointer() == null) {
                throw new IOReportGroupMissing("IOReport has no channel group '" + group + "'");
            }
            Pointer list = channels.getValue(CHANNELS_KEY);
            if (list == null || new CFArrayRef(list).getCount() == 0) {
                throw new IOReportGroupMissing("IOReport has no channels in group '" + group + "'");
            }
            desired = CoreFoundationCopy.INSTANCE.CFDictionaryCreateMutableCopy(null, new CFIndex(0), channels);
            if (desired == null || desired.getPointer() == null) {
                throw new IOException("cannot copy the IOReport channels of '" + group + "'");
            }
            PointerByReference out = new PointerByReference();
            Pointer sub = lib.IOReportCreateSubscription(null, desired, out, 0, null);
            if (sub == null || out.getValue() == null) {
                throw new IOException("IOReportCreateSubscription refused group '" + group + "'");
            }
            MacNativeIOReport r = new MacNativeIOReport(lib, group, wanted, new CFTypeRef(sub), desired,
                    new CFMutableDictionaryRef(out.getValue()));
            desired = null;
            return r;
        } finally {
            if (desired != null) {
                desired.release();
            }
            if (channels != null && channels.getPointer() != null) {
                channels.release();
            }
            g.release();
            if (sg != null) {
                sg.release();
            }
        }
    }

    @Override
    public synchronized IOReportDelta next() throws IOException {
        if (closed) {
            throw new IOException("IOReport subscription to '" + group + "' closed");
        }
        CFDictionaryRef current = lib.IOReportCreateSamples(subscription.getPointer(), subscribed, null);
        long now = System.nanoTime();
        if (current == null || current.getPointer() == null) {
            throw new IOException("IOReportCreateSamples returned nothing for '" + group + "'");
        }
        if (previous == null) {
            previous = current;
            previousNanos = now;
            return null;
        }
        CFDictionaryRef delta = lib.IOReportCreateSamplesDelta(previous, current, null);
        double seconds = (now - previousNanos) / 1e9;
        previous.release();
        previous = current;
        previousNanos = now;
        if (delta == null || delta.getPointer() == null) {
            throw new IOException("IOReportCreateSamplesDelta returned nothing for '" + group + "'");
        }
        try {
            return new IOReportDelta(seconds, channels(delta));
        } finally {
            delta.release();
        }
    }

    private List<IOReportChannel> channels(CFDictionaryRef sample) {
        Pointer array = sample.getValue(CHANNELS_KEY);
        if (array == null) {
            return List.of();
        }
        CFArrayRef a = new CFArrayRef(array);
        int n = Math.min(a.getCount(), MAX_CHANNELS);
        List<IOReportChannel> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CFDictionaryRef ch = new CFDictionaryRef(a.getValueAtIndex(i));
            String name = string(lib.IOReportChannelGetChannelName(ch));
            if (!wanted.test(name)) {
                continue;
            }
            int format = lib.IOReportChannelGetFormat(ch);
            String g = string(lib.IOReportChannelGetGroup(ch));
            String sg = string(lib.IOReportChannelGetSubGroup(ch));
            if (format == FORMAT_SIMPLE) {
                String unit = string(lib.IOReportChannelGetUnitLabel(ch));
                out.add(new IOReportChannel(g, sg, name, unit, lib.IOReportSimpleGetIntegerValue(ch, 0), List.of()));
            } else if (format == FORMAT_STATE) {
                int count = Math.min(Math.max(0, lib.IOReportStateGetCount(ch)), 256);
                List<IOReportChannel.State> states = new ArrayList<>(count);
                for (int s = 0; s < count; s++) {
                    states.add(new IOReportChannel.State(string(lib.IOReportStateGetNameForIndex(ch, s)),
                            lib.IOReportStateGetResidency(ch, s)));
                }
                out.add(new IOReportChannel(g, sg, name, "", 0, states));
            }
        }
        return out;
    }

    /** Get-rule strings belong to the channel: read, never released. */
    private static String string(CFStringRef s) {
        return s == null || s.getPointer() == null ? "" : s.stringValue();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (previous != null) {
            previous.release();
            previous = null;
        }
        subscribed.release();
        desired.release();
        subscription.release();
    }
}
