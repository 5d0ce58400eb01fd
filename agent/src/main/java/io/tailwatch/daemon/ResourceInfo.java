package io.tailwatch.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/** Resource attributes that describe this agent and host, in OpenTelemetry naming. */
public final class ResourceInfo {
    private ResourceInfo() {
    }

    public static String version() {
        try (InputStream in = ResourceInfo.class.getResourceAsStream("/io/tailwatch/version.properties")) {
            if (in == null) {
                return "dev";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }

    /** host.arch per the semantic conventions (amd64, arm64, ...). */
    public static String arch() {
        String a = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (a) {
            case "x86_64", "amd64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> a;
        };
    }

    public static String osType() {
        String n = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (n.startsWith("mac")) {
            return "darwin";
        }
        if (n.startsWith("linux")) {
            return "linux";
        }
        return n.replace(' ', '_');
    }

    /** Host name without a DNS lookup (a slow resolver must not delay start-up). */
    public static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h != null && !h.isBlank()) {
            return h.strip();
        }
        try {
            Path p = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(p)) {
                return Files.readString(p).strip();
            }
            Path etc = Path.of("/etc/hostname");
            if (Files.isReadable(etc)) {
                return Files.readString(etc).strip();
            }
        } catch (IOException e) {
            // fall through
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The base attributes; platform sources may add more (chip, model). */
    public static Map<String, String> detect() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("service.name", "tailwatch");
        m.put("service.version", version());
        m.put("host.name", hostName());
        m.put("host.arch", arch());
        m.put("os.type", osType());
        m.put("os.version", System.getProperty("os.version", "unknown"));
        // macOS: host.cpu.model, host.model, and os.version from kern.osproductversion.
        m.putAll(io.tailwatch.host.HostSources.resourceAttributes());
        return m;
    }
}
