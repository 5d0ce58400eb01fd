package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads SMC keys over one {@link SmcConnection}: a key's size and type once (command 9, kept), then its
 * value (command 5). A key this SMC does not have (result 132) reads as null, never as 0; any other
 * result fails the read with the key and the result named.
 */
public final class Smc implements AutoCloseable {
    /** Keys listed at most: an Apple silicon SMC has about 2,000 (#KEY); the rest are not looked at. */
    public static final int MAX_KEYS = 4096;
    /** Key infos kept, missing keys included: bounds the cache whatever callers ask for. */
    static final int MAX_CACHED = 512;
    private static final SmcKeyData.KeyInfo MISSING = new SmcKeyData.KeyInfo(0, "----");

    private final SmcConnection connection;
    private final Map<String, SmcKeyData.KeyInfo> infos = new HashMap<>();

    public Smc(SmcConnection connection) {
        this.connection = connection;
    }

    /** The key's value, or null when this SMC has no such key. */
    public synchronized SmcValue read(String key) throws IOException {
        SmcKeyData.KeyInfo info = info(key);
        if (info == MISSING) {
            return null;
        }
        byte[] reply = connection.call(SmcKeyData.readRequest(key, info));
        int result = SmcKeyData.result(reply);
        if (result == SmcKeyData.RESULT_KEY_NOT_FOUND) {
            return null;
        }
        if (result != SmcKeyData.RESULT_SUCCESS) {
            throw new IOException("SMC key " + key + ": read result " + result);
        }
        return new SmcValue(key, info.type(), SmcKeyData.bytes(reply, info.size()));
    }

    /** The key's value as a number, or null when the key is missing or its type is not decoded. */
    public Double number(String key) throws IOException {
        SmcValue v = read(key);
        return v == null ? null : v.number();
    }

    /** The key's size and type, or null when this SMC has no such key. */
    public synchronized SmcKeyData.KeyInfo keyInfo(String key) throws IOException {
        SmcKeyData.KeyInfo info = info(key);
        return info == MISSING ? null : info;
    }

    private SmcKeyData.KeyInfo info(String key) throws IOException {
        SmcKeyData.KeyInfo known = infos.get(key);
        if (known != null) {
            return known;
        }
        byte[] reply = connection.call(SmcKeyData.keyInfoRequest(key));
        int result = SmcKeyData.result(reply);
        SmcKeyData.KeyInfo info;
        if (result == SmcKeyData.RESULT_KEY_NOT_FOUND) {
            info = MISSING;
        } else if (result != SmcKeyData.RESULT_SUCCESS) {
            throw new IOException("SMC key " + key + ": key info result " + result);
        } else {
            info = SmcKeyData.keyInfo(reply);
        }
        if (infos.size() < MAX_CACHED) {
            infos.put(key, info);
        }
        return info;
    }

    /** How many keys this SMC has (#KEY), at most {@link #MAX_KEYS}. */
    public int keyCount() throws IOException {
        Double n = number("#KEY");
        if (n == null || n < 0) {
            throw new IOException("SMC has no readable #KEY (the key count)");
        }
        return (int) Math.min(n, MAX_KEYS);
    }

    /** The name of the key at {@code index} (command 8), or null when the SMC gives none there. */
    public synchronized String keyAt(int index) throws IOException {
        byte[] reply = connection.call(SmcKeyData.keyByIndexRequest(index));
        return SmcKeyData.result(reply) == SmcKeyData.RESULT_SUCCESS ? SmcKeyData.key(reply) : null;
    }

    @Override
    public void close() {
        connection.close();
    }

    /** Closes the connection behind {@code smc} if it was opened; used by every sampler that shares it (closing twice is a no-op). */
    static void closeIfOpened(io.tailwatch.core.host.Lazy<Smc> smc) {
        Smc s = smc.ifOpened();
        if (s != null) {
            s.close();
        }
    }
}
