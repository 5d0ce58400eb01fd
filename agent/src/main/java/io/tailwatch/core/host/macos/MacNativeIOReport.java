package io.tailwatch.core.host.macos;

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
import com.sun.jna.platform.mac.CoreFoundation;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One long-lived subscription to an IOReport channel group (private {@code libIOReport.dylib},
 * mapped here because no library maps it), made and sampled the way macmon and mactop do it.
 *
 * <p>CoreFoundation ownership, call by call. IOReport is private and undocumented, so the rule for
 * each call is Apple's Create/Copy/Get naming rule as the two reference tools apply it
 * (macmon = vladkens/macmon src_lib/sources.rs at 6919d778; mactop = context-labs/mactop
 * internal/app/ioreport.m):
 * <ul>
 * <li>{@code IOReportCopyChannelsInGroup}: owned; released once its mutable copy is made (mactop
 *     line 203 releases it right after {@code CFDictionaryCreateMutableCopy}; macmon keeps it and
 *     releases it on drop, line 995). The copy retains the channel array, so releasing early is safe.
 * <li>{@code CFDictionaryCreateMutableCopy}: owned; this "channels" dictionary is handed to
 *     {@code IOReportCreateSubscription} and then to every {@code IOReportCreateSamples} (macmon
 *     lines 884 and 913-925, mactop lines 209-211 and 471-479), kept for the subscription's life and
 *     released at close (macmon line 989).
 * <li>{@code IOReportCreateSubscription}: the subscription is owned and released at close (macmon
 *     line 990). Its out-dictionary is neither used nor released: macmon drops it unread
 *     (lines 859-868), mactop never touches {@code subsystem} again (line 209). Releasing a
 *     dictionary the library may still hold would be an over-release (a crash); not releasing it
 *     costs one dictionary per subscription, which is made once for the agent's life.
 * <li>{@code IOReportCreateSamples}: owned; the previous sample is released once the delta against
 *     it is taken (macmon line 942, mactop lines 487-488), the last one at close (macmon line 998).
 * <li>{@code IOReportCreateSamplesDelta}: owned; released after it is copied into plain
 *     {@link IOReportChannel} records (macmon's iterator drop, lines 318-320; mactop line 571).
 * <li>{@code CFDictionaryGetValue}, {@code CFArrayGetValueAtIndex}, {@code IOReportChannelGet*},
 *     {@code IOReportStateGetNameForIndex}: Get rule, borrowed from the sample, never released.
 * <li>{@code CFStringCreateWithCharacters} (group and subgroup names): owned, released after the copy.
 * </ul>
 * Only channels whose name passes the filter are read further, to keep a sample cheap.
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

    private final IOReportCalls calls;
    private final String group;
    private final Predicate<String> wanted;
    private final LongSupplier nanoTime;
    private final long subscription;
    private final long channels;
    private long previous;
    private long previousNanos;
    private boolean closed;

    private MacNativeIOReport(IOReportCalls calls, String group, Predicate<String> wanted, LongSupplier nanoTime,
                              long subscription, long channels) {
        this.calls = calls;
        this.group = group;
        this.wanted = wanted;
        this.nanoTime = nanoTime;
        this.subscription = subscription;
        this.channels = channels;
    }

    /** Subscribes to a group (and optionally one subgroup); fails when the group has no channels. */
    public static MacNativeIOReport open(String group, String subgroup, Predicate<String> wanted) throws IOException {
        return open(new Jna(IOReport.INSTANCE), group, subgroup, wanted, System::nanoTime);
    }

    static MacNativeIOReport open(IOReportCalls calls, String group, String subgroup, Predicate<String> wanted,
                                  LongSupplier nanoTime) throws IOException {
        long inGroup = calls.copyChannelsInGroup(group, subgroup);
        if (inGroup == 0) {
            throw new IOReportGroupMissing("IOReport has no channel group '" + group + "'");
        }
        long channels = 0;
        try {
            if (calls.channelCount(inGroup) == 0) {
                throw new IOReportGroupMissing("IOReport has no channels in group '" + group + "'");
            }
            channels = calls.createMutableCopy(inGroup);
            if (channels == 0) {
                throw new IOException("cannot copy the IOReport channels of '" + group + "'");
            }
            long[] out = new long[1];
            long sub = calls.createSubscription(channels, out);
            if (sub == 0) {
                throw new IOException("IOReportCreateSubscription refused group '" + group + "'");
            }
            // out[0] is deliberately left alone: see the class comment.
            MacNativeIOReport r = new MacNativeIOReport(calls, group, wanted, nanoTime, sub, channels);
            channels = 0;
            return r;
        } finally {
            if (channels != 0) {
                calls.release(channels);
            }
            calls.release(inGroup);
        }
    }

    @Override
    public synchronized IOReportDelta next() throws IOException {
        if (closed) {
            throw new IOException("IOReport subscription to '" + group + "' closed");
        }
        long current = calls.createSamples(subscription, channels);
        long now = nanoTime.getAsLong();
        if (current == 0) {
            throw new IOException("IOReportCreateSamples returned nothing for '" + group + "'");
        }
        if (previous == 0) {
            previous = current;
            previousNanos = now;
            return null;
        }
        long delta = calls.createSamplesDelta(previous, current);
        double seconds = (now - previousNanos) / 1e9;
        calls.release(previous);
        previous = current;
        previousNanos = now;
        if (delta == 0) {
            throw new IOException("IOReportCreateSamplesDelta returned nothing for '" + group + "'");
        }
        try {
            return new IOReportDelta(seconds, calls.channels(delta, wanted, MAX_CHANNELS));
        } finally {
            calls.release(delta);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (previous != 0) {
            calls.release(previous);
            previous = 0;
        }
        calls.release(channels);
        calls.release(subscription);
    }

    /** The calls through JNA: libIOReport and CoreFoundation. */
    static final class Jna implements IOReportCalls {
        private static final CFStringRef CHANNELS_KEY = CFStringRef.createCFString("IOReportChannels");

        private final IOReport lib;

        Jna(IOReport lib) {
            this.lib = lib;
        }

        private static long address(com.sun.jna.PointerType p) {
            return p == null ? 0 : Pointer.nativeValue(p.getPointer());
        }

        private static long address(Pointer p) {
            return p == null ? 0 : Pointer.nativeValue(p);
        }

        private static CFDictionaryRef dict(long a) {
            return new CFDictionaryRef(new Pointer(a));
        }

        @Override
        public long copyChannelsInGroup(String group, String subgroup) {
            CFStringRef g = CFStringRef.createCFString(group);
            CFStringRef sg = subgroup == null ? null : CFStringRef.createCFString(subgroup);
            try {
                return address(lib.IOReportCopyChannelsInGroup(g, sg, 0, 0, 0));
            } finally {
                g.release();
                if (sg != null) {
                    sg.release();
                }
            }
        }

        @Override
        public int channelCount(long dictionary) {
            Pointer list = dict(dictionary).getValue(CHANNELS_KEY);
            return list == null ? 0 : new CFArrayRef(list).getCount();
        }

        @Override
        public long createMutableCopy(long dictionary) {
            return address(CoreFoundationCopy.INSTANCE.CFDictionaryCreateMutableCopy(null, new CFIndex(0), dict(dictionary)));
        }

        @Override
        public long createSubscription(long channels, long[] subscribedOut) {
            PointerByReference out = new PointerByReference();
            Pointer sub = lib.IOReportCreateSubscription(null, new CFMutableDictionaryRef(new Pointer(channels)), out, 0, null);
            subscribedOut[0] = address(out.getValue());
            return address(sub);
        }

        @Override
        public long createSamples(long subscription, long channels) {
            return address(lib.IOReportCreateSamples(new Pointer(subscription), new CFMutableDictionaryRef(new Pointer(channels)),
                    null));
        }

        @Override
        public long createSamplesDelta(long previous, long current) {
            return address(lib.IOReportCreateSamplesDelta(dict(previous), dict(current), null));
        }

        @Override
        public List<IOReportChannel> channels(long sample, Predicate<String> wanted, int max) {
            Pointer array = dict(sample).getValue(CHANNELS_KEY);
            if (array == null) {
                return List.of();
            }
            CFArrayRef a = new CFArrayRef(array);
            int n = Math.min(a.getCount(), max);
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
        public void release(long object) {
            if (object != 0) {
                CoreFoundation.INSTANCE.CFRelease(new CFTypeRef(new Pointer(object)));
            }
        }
    }
}
