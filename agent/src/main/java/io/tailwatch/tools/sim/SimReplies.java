package io.tailwatch.tools.sim;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fixed answers a flavour's wire can be told to give instead of its own (a broken or out-of-range body for
 * one path), and the one way those wires write a body.
 */
final class SimReplies {
    record Reply(int status, String contentType, String body) {
    }

    private final Map<String, Reply> overrides = new ConcurrentHashMap<>();

    void set(String path, int status, String contentType, String body) {
        if (body == null) {
            overrides.remove(path);
        } else {
            overrides.put(path, new Reply(status, contentType, body));
        }
    }

    /** Sends the fixed answer for the request's path, if one is set; true when it did. */
    boolean sendOverride(HttpExchange x) throws IOException {
        Reply r = overrides.get(x.getRequestURI().getPath());
        if (r == null) {
            return false;
        }
        send(x, r.status(), r.contentType(), r.body());
        return true;
    }

    /**
     * An OpenAI-compatible model list ({@code {"object": "list", "data": [...]}}) with one entry per id, each as
     * these servers write it ({@code id}, {@code object: model}, {@code created}); the entries are returned for
     * what a server adds of its own ({@code owned_by}, llama.cpp's {@code meta}).
     */
    static java.util.List<com.fasterxml.jackson.databind.node.ObjectNode> modelList(
            com.fasterxml.jackson.databind.node.ObjectNode root, java.util.List<String> ids) {
        root.put("object", "list");
        com.fasterxml.jackson.databind.node.ArrayNode data = root.putArray("data");
        java.util.List<com.fasterxml.jackson.databind.node.ObjectNode> entries = new java.util.ArrayList<>(ids.size());
        for (String id : ids) {
            entries.add(data.addObject().put("id", id).put("object", "model").put("created", 1_767_600_000L));
        }
        return entries;
    }

    static void send(HttpExchange x, int status, String contentType, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", contentType);
        x.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            try (OutputStream o = x.getResponseBody()) {
                o.write(b);
            }
        }
    }

    static void json(HttpExchange x, int status, String body) throws IOException {
        send(x, status, "application/json", body);
    }
}
