package io.tailwatch.tools.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one OS tool for {@code tailwatch doctor} (never used by samplers): C locale, output to a
 * temporary file read back up to {@value #MAX_OUTPUT} bytes, a deadline after which the tool is
 * killed, and a non-zero exit reported as an error naming the command.
 */
public interface ToolRunner {
    int MAX_OUTPUT = 1 << 20;

    String run(List<String> command) throws IOException;

    static ToolRunner system(Duration deadline) {
        return command -> {
            String cmd = String.join(" ", command);
            Path out = Files.createTempFile("tailwatch-doctor", ".out");
            try {
                ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                pb.environment().put("LC_ALL", "C");
                Process p;
                try {
                    p = pb.start();
                } catch (IOException e) {
                    throw new IOException(cmd + ": cannot run (" + e.getMessage() + ")");
                }
                try {
                    if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                        p.destroyForcibly();
                        throw new IOException(cmd + ": no answer within " + deadline.toSeconds() + " s");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                    throw new IOException(cmd + ": interrupted");
                }
                if (p.exitValue() != 0) {
                    throw new IOException(cmd + ": exit status " + p.exitValue());
                }
                try (InputStream in = Files.newInputStream(out)) {
                    return new String(in.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8);
                }
            } finally {
                Files.deleteIfExists(out);
            }
        };
    }
}
