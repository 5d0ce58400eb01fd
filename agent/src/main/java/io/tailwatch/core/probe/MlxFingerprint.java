package io.tailwatch.core.probe;

import java.util.regex.Pattern;

/**
 * mlx_lm.server has no version endpoint; every completion carries {@code system_fingerprint}
 * {@code <mlx-lm version>-<mlx version>-<platform>-<GPU architecture>} (e.g.
 * {@code 0.32.0-0.32.1-macOS-15.6.1-arm64-arm-64bit-applegpu_g15s}).
 */
public final class MlxFingerprint {
    private static final Pattern VERSION = Pattern.compile("\\d+(\\.\\d+){1,3}[a-z0-9.]*");

    private MlxFingerprint() {
    }

    /**
     * The version as "0.32.0 (mlx 0.32.1, applegpu_g15s)" (the GPU architecture only when it is Apple's), or
     * null when the fingerprint is not of that form (another server's, or none).
     */
    public static String version(String fingerprint) {
        if (fingerprint == null || fingerprint.length() > 200) {
            return null;
        }
        String[] parts = fingerprint.split("-");
        if (parts.length < 3 || !VERSION.matcher(parts[0]).matches() || !VERSION.matcher(parts[1]).matches()) {
            return null;
        }
        String gpu = parts[parts.length - 1];
        return parts[0] + " (mlx " + parts[1] + (gpu.matches("applegpu_[a-z0-9]{1,16}") ? ", " + gpu : "") + ")";
    }
}
