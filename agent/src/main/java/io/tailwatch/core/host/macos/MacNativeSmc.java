package io.tailwatch.core.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.IOKit;
import com.sun.jna.platform.mac.IOKit.IOConnect;
import com.sun.jna.platform.mac.IOKit.IOIterator;
import com.sun.jna.platform.mac.IOKit.IORegistryEntry;
import com.sun.jna.platform.mac.IOKit.IOService;
import com.sun.jna.platform.mac.IOKitUtil;
import com.sun.jna.platform.mac.SystemB;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;

/**
 * The AppleSMC user client (IOKit): {@code IOServiceOpen} on the "AppleSMC" service, then
 * {@code IOConnectCallStructMethod} selector 2 with an {@link SmcKeyData} structure, no privileges needed
 * for reads. Apple silicon registers several AppleSMC services; the keys are served by the one named
 * {@value #KEYS_ENDPOINT}, taken when present (else the first). Ownership: the iterator and every entry
 * it yields are released here; the connection is closed by {@link #close}.
 */
public final class MacNativeSmc implements SmcConnection {
    static final String SERVICE = "AppleSMC";
    static final String KEYS_ENDPOINT = "AppleSMCKeysEndpoint";
    /** Services looked at: a Mac has one to three AppleSMC entries. */
    private static final int MAX_SERVICES = 8;

    interface Calls extends Library {
        Calls INSTANCE = Native.load("IOKit", Calls.class);

        int IOConnectCallStructMethod(int connection, int selector, Pointer input, long inputSize, Pointer output,
                                      LongByReference outputSize);
    }

    private final IOConnect connect;
    private final int port;
    private final Memory in = new Memory(SmcKeyData.SIZE);
    private final Memory out = new Memory(SmcKeyData.SIZE);
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private MacNativeSmc(IOConnect connect) {
        this.connect = connect;
        this.port = (int) Pointer.nativeValue(connect.getPointer());
    }

    /** Opens the user client; throws when IOKit or the AppleSMC service is missing, or the open is refused. */
    public static MacNativeSmc open() throws IOException {
        IOIterator it = IOKitUtil.getMatchingServices(SERVICE);
        if (it == null) {
            throw new IOException("no " + SERVICE + " service in the IORegistry");
        }
        IORegistryEntry chosen = null;
        try {
            int seen = 0;
            for (IORegistryEntry e = it.next(); e != null; e = it.next()) {
                if (seen++ >= MAX_SERVICES) {
                    e.release();
                } else if (chosen == null) {
                    chosen = e;
                } else if (KEYS_ENDPOINT.equals(e.getName()) && !KEYS_ENDPOINT.equals(chosen.getName())) {
                    chosen.release();
                    chosen = e;
                } else {
                    e.release();
                }
            }
        } finally {
            it.release();
        }
        if (chosen == null) {
            throw new IOException("no " + SERVICE + " service in the IORegistry");
        }
        try {
            PointerByReference ref = new PointerByReference();
            int kr = IOKit.INSTANCE.IOServiceOpen(new IOService(chosen.getPointer()), SystemB.INSTANCE.mach_task_self(), 0, ref);
            if (kr != 0 || ref.getValue() == null) {
                throw new IOException(String.format("IOServiceOpen(%s) returned 0x%08x", SERVICE, kr));
            }
            return new MacNativeSmc(new IOConnect(ref.getValue()));
        } finally {
            chosen.release();
        }
    }

    @Override
    public synchronized byte[] call(byte[] request) throws IOException {
        if (closed.get()) {
            throw new IOException("SMC connection closed");
        }
        if (request.length != SmcKeyData.SIZE) {
            throw new IllegalArgumentException("SMC request of " + request.length + " bytes");
        }
        in.write(0, request, 0, SmcKeyData.SIZE);
        out.clear();
        LongByReference outSize = new LongByReference(SmcKeyData.SIZE);
        int kr = Calls.INSTANCE.IOConnectCallStructMethod(port, SmcKeyData.SELECTOR, in, SmcKeyData.SIZE, out, outSize);
        if (kr != 0) {
            throw new IOException(String.format("IOConnectCallStructMethod(SMC) returned 0x%08x", kr));
        }
        if (outSize.getValue() != SmcKeyData.SIZE) {
            throw new IOException("SMC replied " + outSize.getValue() + " bytes, expected " + SmcKeyData.SIZE);
        }
        return out.getByteArray(0, SmcKeyData.SIZE);
    }

    /**
     * Not synchronized with {@link #call}: a reload must not wait on a call stuck in the kernel. The
     * buffers stay reachable (fields), so a call still in flight never writes into freed memory.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            IOKit.INSTANCE.IOServiceClose(connect);
        }
    }
}
