package io.tailwatch.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A stand-in `launchctl`: a shell script that appends its argv (one argument per line, a line
 * "--end--" after each call) to calls.txt, prints output.txt and exits with exit.txt (default 0).
 * Put {@link #bin()} first on PATH.
 */
public final class RecordingLaunchctl {
    private final Path bin;
    private final Path calls;

    public RecordingLaunchctl(Path dir) throws IOException {
        this.bin = Files.createDirectories(dir.resolve("bin"));
        this.calls = dir.resolve("calls.txt");
        Path script = bin.resolve("launchctl");
        Files.writeString(script, "#!/bin/sh\n"
                + "d='" + dir + "'\n"
                + "for a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$d/calls.txt\"; done\n"
                + "printf -- '--end--\\n' >> \"$d/calls.txt\"\n"
                + "[ -f \"$d/sleep.txt\" ] && sleep \"$(cat \"$d/sleep.txt\")\"\n"
                + "[ -f \"$d/output.txt\" ] && cat \"$d/output.txt\"\n"
                + "[ -f \"$d/exit.txt\" ] && exit \"$(cat \"$d/exit.txt\")\"\n"
                + "exit 0\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    public Path bin() {
        return bin;
    }

    /** PATH with the stand-in first. */
    public String path() {
        return bin + ":" + System.getenv("PATH");
    }

    public void exitWith(int code, String output) throws IOException {
        Files.writeString(bin.getParent().resolve("exit.txt"), Integer.toString(code));
        Files.writeString(bin.getParent().resolve("output.txt"), output);
    }

    public void sleepSeconds(int s) throws IOException {
        Files.writeString(bin.getParent().resolve("sleep.txt"), Integer.toString(s));
    }

    public void reset() throws IOException {
        Files.deleteIfExists(calls);
        Files.deleteIfExists(bin.getParent().resolve("exit.txt"));
        Files.deleteIfExists(bin.getParent().resolve("output.txt"));
        Files.deleteIfExists(bin.getParent().resolve("sleep.txt"));
    }

    /** Every call so far, each as its argv without the program name. */
    public List<List<String>> calls() throws IOException {
        List<List<String>> out = new ArrayList<>();
        if (!Files.exists(calls)) {
            return out;
        }
        List<String> cur = new ArrayList<>();
        for (String line : Files.readAllLines(calls, StandardCharsets.UTF_8)) {
            if (line.equals("--end--")) {
                out.add(cur);
                cur = new ArrayList<>();
            } else {
                cur.add(line);
            }
        }
        return out;
    }
}
