package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.text.SafeText;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Text that engines and the agent's answers put on the terminal through {@code detect}, {@code probe},
 * {@code status} and {@code diagnose}: a version that sets the window title and clears the screen, a
 * model name with the one-character C1 CSI, an error body with a hyperlink escape, BEL and form feed.
 * Every command shows it with the characters escaped, never raw.
 */
class TerminalSafeOutputTest {
    /** JSON-escaped: the parsed strings hold the raw ESC, BEL, C1 CSI and form feed. */
    private static final String VERSION = "0.1\\u001b]0;pwned\\u0007\\u001b[2J";
    private static final String MODEL = "m\\u009b31m\\u001b[H\\u001b[2J";
    private static final String BODY = "boom \u001b[2J\u001b]8;;http://evil.example/\u0007link\u001b]8;;\u0007\f\r";

    HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        answer("/api/version", 200, "{\"version\":\"" + VERSION + "\"}");
        answer("/api/tags", 200, "{\"models\":[{\"name\":\"" + MODEL + "\"}]}");
        answer("/api/ps", 200, "{\"models\":[{\"name\":\"" + MODEL + "\",\"model\":\"" + MODEL + "\"}]}");
        answer("/api/show", 404, "{\"error\":\"" + MODEL + "\"}");
        answer("/api/chat", 500, BODY);
        answer("/api/v1/status", 200, "{\"version\":\"" + VERSION + "\",\"listener\":{\"warning\":\"" + VERSION
                + "\"},\"engines\":[{\"name\":\"" + MODEL + "\",\"up\":false,\"error\":\"" + VERSION + "\",\"version\":\""
                + VERSION + "\",\"models\":[{\"name\":\"" + MODEL + "\"}]}]}");
        answer("/api/v1/alerts", 200, "{\"alerts\":[{\"labels\":{\"alertname\":\"EngineDown\",\"engine\":\"" + MODEL
                + "\"},\"state\":\"firing\",\"severity\":\"critical\",\"summary\":\"" + VERSION + "\",\"since\":\""
                + "2026-01-01T00:00:00Z\",\"runbook\":\"" + VERSION + "\"}]}");
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(String path, int status, String body) {
        server.createContext(path, ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** No character a terminal acts on but the line feed, and the hostile text shown escaped. */
    private static void safe(HistoryCommandTest.Run r, String shown) {
        String all = r.out() + r.err();
        for (int i = 0; i < all.length(); i++) {
            char c = all.charAt(i);
            assertThat(c != '\n' && SafeText.unsafe(c)).as("U+%04X at %d in:%n%s", (int) c, i, all).isFalse();
        }
        assertThat(all).contains(shown);
    }

    @Test
    void detectShowsAnEnginesVersionAndModelsEscaped() {
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports",
                String.valueOf(server.getAddress().getPort()));
        safe(r, "\\u001b]0;pwned\\u0007");
        assertThat(r.out()).contains("\\u009b31m");
    }

    @Test
    void probeShowsAnErrorBodyEscaped() {
        HistoryCommandTest.Run r = HistoryCommandTest.run("probe", "--url", url(), "--api", "ollama", "--model", "x");
        safe(r, "\\u001b]8;;http://evil.example/\\u0007");
    }

    @Test
    void statusShowsTheAgentsAnswerEscaped() {
        HistoryCommandTest.Run r = HistoryCommandTest.run("status", "--url", url());
        safe(r, "\\u001b");
    }

    @Test
    void diagnoseShowsTheAgentsAnswerEscaped() {
        HistoryCommandTest.Run r = HistoryCommandTest.run("diagnose", "--url", url());
        String all = r.out() + r.err();
        assertThat(all).isNotBlank();
        safe(r, "");
    }

    @Test
    void theRuleEscapesEveryControlAndKeepsLineFeedsOnATerminal() {
        assertThat(SafeText.terminal("a\u001b[2Jb\u0007c\u009bd\u0085e\u202ef\fg\rh\ni\tj"))
                .isEqualTo("a\\u001b[2Jb\\u0007c\\u009bd\\u0085e\\u202ef\\u000cg\\rh\ni\tj");
        assertThat(SafeText.escape("x\ny", 100)).isEqualTo("x\\ny");
        assertThat(SafeText.terminal("plain: ünïcode 模型 ✓")).isEqualTo("plain: ünïcode 模型 ✓");
    }
}
