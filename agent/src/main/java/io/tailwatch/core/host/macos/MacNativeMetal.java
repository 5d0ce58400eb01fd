package io.tailwatch.core.host.macos;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.io.IOException;

/**
 * {@code MTLDevice.recommendedMaxWorkingSetSize} through the Objective-C runtime: the Metal framework's
 * {@code MTLCreateSystemDefaultDevice()} gives the device (an owned reference, kept for the life of the
 * process: there is one GPU and the figure is read every cycle), {@code sel_registerName} the
 * selector, and {@code objc_msgSend(device, sel)} the {@code uint64_t} it returns. Before the first read
 * the device is asked {@code respondsToSelector:}, so a device without the property (a macOS before
 * 10.12) is a clear failure, not a call into the void. On arm64, {@code objc_msgSend} with no
 * arguments beyond self and the selector has the plain C calling convention JNA uses.
 *
 * <p>Why Metal and not the IORegistry: the IORegistry's accelerator entry carries the memory in use
 * and allocated (read by {@link MacNativeAccelerator}) but no working-set limit; Metal computes the
 * limit itself from total memory and {@code iogpu.wired_limit_mb}, so asking Metal is the only way to
 * get the figure engines (MLX, llama.cpp) are held to.
 */
public final class MacNativeMetal implements MetalWorkingSet {
    static final String METAL = "/System/Library/Frameworks/Metal.framework/Metal";
    static final String SELECTOR = "recommendedMaxWorkingSetSize";

    private final Function msgSend;
    private final Pointer device;
    private final Pointer selector;

    private MacNativeMetal(Function msgSend, Pointer device, Pointer selector) {
        this.msgSend = msgSend;
        this.device = device;
        this.selector = selector;
    }

    /** Loads libobjc and Metal and creates the default device; throws where either is missing or there is no GPU. */
    public static MacNativeMetal open() throws IOException {
        NativeLibrary objc = NativeLibrary.getInstance("objc");
        NativeLibrary metal = NativeLibrary.getInstance(METAL);
        Function msgSend = objc.getFunction("objc_msgSend");
        Function registerName = objc.getFunction("sel_registerName");
        Pointer nsObject = objc.getFunction("objc_getClass").invokePointer(new Object[] {"NSObject"});
        if (nsObject == null) {
            throw new IOException("the Objective-C runtime has no NSObject class");
        }
        Pointer device = metal.getFunction("MTLCreateSystemDefaultDevice").invokePointer(new Object[0]);
        if (device == null) {
            throw new IOException("MTLCreateSystemDefaultDevice returned no device (no Metal GPU)");
        }
        Pointer selector = registerName.invokePointer(new Object[] {SELECTOR});
        Pointer responds = registerName.invokePointer(new Object[] {"respondsToSelector:"});
        // BOOL is a signed char on x86_64 and a C bool on arm64: only the low byte means anything.
        int yes = msgSend.invokeInt(new Object[] {device, responds, selector}) & 0xff;
        if (yes == 0) {
            throw new IOException("the Metal device does not respond to " + SELECTOR);
        }
        return new MacNativeMetal(msgSend, device, selector);
    }

    @Override
    public long recommendedMaxWorkingSetSize() throws IOException {
        long v = msgSend.invokeLong(new Object[] {device, selector});
        if (v <= 0) {
            throw new IOException(SELECTOR + " is " + Long.toUnsignedString(v));
        }
        return v;
    }
}
