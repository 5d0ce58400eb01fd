package io.tailwatch.core.host.macos;

import java.io.IOException;

/**
 * One open AppleSMC user client: sends an {@link SmcKeyData} structure through selector 2 and returns
 * the structure the SMC filled in. The native one is {@link MacNativeSmc}; tests answer from fixtures.
 */
public interface SmcConnection extends AutoCloseable {
    /** {@code request} and the reply are {@link SmcKeyData#SIZE} bytes. Throws when the call itself fails. */
    byte[] call(byte[] request) throws IOException;

    @Override
    void close();
}
