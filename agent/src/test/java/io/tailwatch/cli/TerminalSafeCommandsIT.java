package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.text.SafeText;
import io.tailwatch.testing.AgentProcess;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

/**
 * Every command of the tailwatch command line, run through the release launcher as a user runs it, against an
 * engine and an agent whose every answer holds terminal escapes (a window title, a screen clear, the C1 CSI, a
 * hyperlink, BEL): nothing but line feeds and tabs of control characters reaches the terminal. Each command is
 * either walked here or named with why it prints no outside text; a new command fails until it is one of them.
 */
@EnabledOnOs(OS.LINUX)
class TerminalSafeCommandsIT {
    private static final String ESC = "m\u001b]0;pwned\u0007\u001b[2J\u009b31m";

    /** Commands that print nothing from outside: their own text, the config, the catalog or local files of their own. */
    private static final Map<String, String> NO_OUTSIDE_TEXT = Map.of(
            "config", "checks a local file; problems name its own lines",
            "metrics", "prints the catalog",
            "rules", "prints the shipped rules",
            "service", "writes plists from the config",
            "simulate", "serves, prints its own address",
            "run", "logs pass LogGuard's escaping (LogFloodIT)",
            "help", "picocli's usage");

    @TempDir
    Path dir;

    private static String json(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c < 0x20 || c >= 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.toString();
    }

    private static HttpServer hostile() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String m = json(ESC);
        Map<String, String> answers = new LinkedHashMap<>();
        answers.put("/api/version", "{\"version\":\"" + m + "\"}");
        answers.put("/api/tags", "{\"models\":[{\"name\":\"" + m + "\"}]}");
        answers.put("/api/ps", "{\"models\":[{\"name\":\"" + m + "\",\"model\":\"" + m + "\"}]}");
        answers.put("/api/show", "{\"error\":\"" + m + "\"}");
        answers.put("/api/chat", "{\"error\":\"" + m + "\"}");
        answers.put("/api/v1/status", "{\"version\":\"" + m + "\",\"listener\":{\"warning\":\"" + m + "\"},\"engines\":[{\"name\":\""
                + m + "\",\"up\":false,\"error\":\"" + m + "\",\"version\":\"" + m + "\",\"models\":[{\"name\":\"" + m + "\"}]}]}");
        answers.put("/api/v1/alerts", "{\"alerts\":[{\"labels\":{\"alertname\":\"EngineDown\",\"engine\":\"" + m
                + "\"},\"state\":\"firing\",\"severity\":\"critical\",\"summary\":\"" + m + "\",\"since\":\"2026-01-01T00:00:00Z\"}]}");
        answers.forEach((path, body) -> s.createContext(path, ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            int status = path.equals("/api/show") || path.equals("/api/chat") ? 500 : 200;
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        }));
        s.start();
        return s;
    }

    @Test
    void noCommandPutsAnEnginesOrTheAgentsEscapesOnTheTerminal() throws Exception {
        HttpServer server = hostile();
        try {
            String port = String.valueOf(server.getAddress().getPort());
            String url = "http://127.0.0.1:" + port;
            Map<String, List<String>> walked = new LinkedHashMap<>();
            walked.put("detect", List.of("detect", "--only", "--ports", port));
            walked.put("probe", List.of("probe", "--url", url, "--api", "ollama", "--model", "x"));
            walked.put("status", List.of("status", "--url", url));
            walked.put("diagnose", List.of("diagnose", "--url", url));
            walked.put("kv-budget", List.of("kv-budget", "--url", url, "--api", "ollama", "--model", "x"));
            walked.put("bench", List.of("bench", "--url", url, "--api", "ollama", "--model", "x"));
            walked.put("ladder", List.of("ladder", "--url", url, "--api", "ollama", "--model", "x", "--out",
                    dir.resolve("ladder").toString()));
            walked.put("doctor", List.of("doctor", "--url", url, "--api", "ollama"));
            walked.put("engine", List.of("engine", "restart", "--url", url));
            walked.put("history", List.of("history", "--db", dir.resolve("none.db").toString()));

            Set<String> all = new TreeSet<>();
            for (Class<?> c : TailwatchCommand.class.getAnnotation(Command.class).subcommands()) {
                all.add(c.getAnnotation(Command.class).name());
            }
            Set<String> classified = new TreeSet<>(walked.keySet());
            classified.addAll(NO_OUTSIDE_TEXT.keySet());
            assertThat(classified).as("every command is walked or says why it prints no outside text").containsAll(all);

            int escapedSomewhere = 0;
            for (Map.Entry<String, List<String>> e : walked.entrySet()) {
                try (AgentProcess p = AgentProcess.startShipped(dir, Map.of(), e.getValue().toArray(String[]::new))) {
                    assertThat(p.process().waitFor(120, TimeUnit.SECONDS)).as(e.getKey() + " finished").isTrue();
                    String shown = p.stdout() + p.stderr();
                    for (int i = 0; i < shown.length(); i++) {
                        char c = shown.charAt(i);
                        assertThat(c != '\n' && c != '\t' && SafeText.unsafe(c))
                                .as("%s: U+%04X at %d in:%n%s", e.getKey(), (int) c, i, shown).isFalse();
                    }
                    if (shown.contains("\\u001b")) {
                        escapedSomewhere++;
                    }
                }
            }
            assertThat(escapedSomewhere).as("the engine's text was shown, escaped").isGreaterThanOrEqualTo(4);
        } finally {
            server.stop(0);
        }
    }
}
