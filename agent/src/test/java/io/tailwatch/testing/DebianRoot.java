package io.tailwatch.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The wrapper of a tool that scripts/debian-root.sh unpacked into a private root (llama.cpp's llama-server,
 * Prometheus 3): the path in the tool's own variable, else the root the script built last in the cache.
 * Without either the test is skipped, unless the tool's {@code TAILWATCH_REQUIRE_*} variable is 1 (CI),
 * where it fails.
 */
final class DebianRoot {
    private DebianRoot() {
    }

    /**
     * @param variable the variable .ci/run sets to the wrapper's path (TAILWATCH_LLAMA_SERVER)
     * @param require  the suffix of the variable that makes a missing tool a failure (LLAMA for TAILWATCH_REQUIRE_LLAMA)
     * @param name     the root's name in the cache (llama for CACHE/llama-root) and its script (scripts/llama-root.sh)
     * @param wrapper  the wrapper's name in the root (run-llama-server)
     */
    static Path wrapper(String variable, String require, String name, String wrapper) {
        String env = System.getenv(variable);
        Path found = null;
        if (env != null && !env.isEmpty()) {
            found = Path.of(env);
        } else {
            String base = System.getenv("TAILWATCH_CACHE");
            Path cache = base != null && !base.isEmpty() ? Path.of(base)
                    : Path.of(System.getProperty("user.home"), ".cache", "tailwatch");
            Path current = cache.resolve(name + "-root/current-forky");
            try {
                if (Files.isRegularFile(current)) {
                    found = Path.of(Files.readString(current).trim(), wrapper);
                }
            } catch (IOException e) {
                found = null;
            }
        }
        if (found != null && Files.isExecutable(found)) {
            return found;
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_" + require))) {
            throw new AssertionError(wrapper + " is required (TAILWATCH_REQUIRE_" + require + "=1) but "
                    + (env == null ? variable + " is not set" : env + " is not executable"));
        }
        assumeTrue(false, "no " + wrapper + " (run scripts/" + name + "-root.sh)");
        return null;
    }
}
