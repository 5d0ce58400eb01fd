package io.tailwatch.core.config;

/** host:port, with [v6] literals. Port 0 asks the OS for a free port. */
public record HostPort(String host, int port) {
    public static HostPort parse(String text) {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT with a numeric port, got '" + text + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range (0-65535): " + port);
        }
        return new HostPort(host, port);
    }

    public static String format(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return format(host, port);
    }
}
