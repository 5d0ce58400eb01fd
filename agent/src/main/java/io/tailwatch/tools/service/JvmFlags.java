package io.tailwatch.tools.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The daemon's JVM flags, from launchd/jvm.options (the launcher reads the same file). */
public final class JvmFlags {
    static final String RESOURCE = "/io/tailwatch/service/jvm.options";

    private JvmFlags() {
    }

    public static List<String> defaults() {
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("JVM flags missing from the jar: " + RESOURCE);
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
