package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.testing.AgentProcess;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 5,000 bad requests whose text varies in letters (Jetty's parser warns about each and echoes what it
 * got) against the real agent: a bounded number of log lines, the start-up lines kept.
 */
class LogFloodIT {
    @TempDir
    Path dir;

    @Test
    void fiveThousandVariedBadRequestsMakeABoundedLog() throws Exception {
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 5s\nengines: []\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            int port = agent.awaitListening();
            String startup = agent.stderr();
            Random r = new Random(11);
            for (int i = 0; i < 5_000; i++) {
                StringBuilder junk = new StringBuilder();
                for (int k = 0; k < 10; k++) {
                    junk.append((char) ('a' + r.nextInt(26)));
                }
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                    s.setSoTimeout(5000);
                    s.getOutputStream().write(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: " + junk
                            + ".example\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    s.getInputStream().readAllBytes();
                }
            }
            assertThat(agent.get("/healthz").statusCode()).isIn(200, 503);
            String log = agent.stderr();
            long flood = log.substring(startup.length()).lines().count();
            System.out.printf("log flood: 5000 varied bad requests, %d log lines after start-up%n", flood);
            assertThat(flood).as("log lines for 5,000 bad requests:%n%s", log.substring(startup.length()))
                    .isLessThanOrEqualTo(LogGuard.SOURCE_BURST + 10);
            assertThat(log).startsWith(startup).contains("listening on");
        }
    }
}
