package io.tailwatch.tools.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The daemon's JVM flags, from launchd/jvm.options, and the ones launchd/jvm-proxy.options adds for a config that
 * gives an engine a metering proxy (the launcher reads the same files).
 */
public final class JvmFlags {
    static final String RESOURCE = "/io/tailwatch/service/jvm.options";
    static final String PROXY_RESOURCE = "/io/tailwatch/service/jvm-proxy.options";

    private JvmFlags() {
    }

    public static List<String> defaults() {
        return read(RESOURCE);
    }

    /** The daemon's flags for a config with ({@code proxied}) or without a metering proxy: the proxy's come last, and win. */
    public static List<String> daemon(boolean proxied) {
        if (!proxied) {
            return defaults();
        }
        List<String> out = new ArrayList<>(defaults());
        out.addAll(read(PROXY_RESOURCE));
        return List.copyOf(out);
    }

    private static List<String> read(String resource) {
        try (InputStream in = JvmFlags.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("JVM flags missing from the jar: " + resource);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One flag per line; blank lines and lines starting with # are skipped. */
    public static List<String> parse(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                out.add(t);
            }
        }
        return List.copyOf(out);
    }
}
