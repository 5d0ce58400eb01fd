package io.tailwatch.core.host.linux;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Readers for the small text files of procfs and sysfs; errors name the file and line. */
public final class ProcFiles {
    private ProcFiles() {
    }

    public static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** Parses "Key:   123 kB" lines (meminfo) into bytes. */
    public static Map<String, Long> meminfo(Path file) throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        String[] lines = read(file).split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException(file + " line " + (i + 1) + ": expected 'Key: value', got '" + clip(line) + "'");
            }
            String[] parts = line.substring(colon + 1).strip().split("\\s+");
            try {
                long v = Long.parseLong(parts[0]);
                if (parts.length > 1 && parts[1].equalsIgnoreCase("kB")) {
                    v *= 1024;
                }
                out.put(line.substring(0, colon), v);
            } catch (NumberFormatException e) {
                throw new IOException(file + " line " + (i + 1) + ": not a number in '" + clip(line) + "'");
            }
        }
        return out;
    }

    /** Reads a file holding one integer. */
    public static long readLong(Path file) throws IOException {
        String s = read(file).strip();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException(file + ": expected an integer, got '" + clip(s) + "'");
        }
    }

    static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
