package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.rules.Signals;
import org.junit.jupiter.api.Test;

class StatusScreenListenerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void listenerWarningIsPrintedOnTop() throws Exception {
        JsonNode status = JSON.readTree("""
                {"version": "0.1.0", "time": "t", "listener": {"listen": "0.0.0.0:9531", "tls": false, "basic_auth": false,
                 "warning": "the listener at 0.0.0.0:9531 is reachable from other hosts without TLS"}}""");
        String screen = StatusScreen.render("http://127.0.0.1:9531", status, JSON.readTree("{\"alerts\": []}"), Signals.EMPTY);
        assertThat(screen.lines().skip(1).findFirst()).hasValue("WARNING the listener at 0.0.0.0:9531 is reachable from other hosts without TLS");
    }

    @Test
    void noWarningLineWithoutAWarning() throws Exception {
        JsonNode status = JSON.readTree("{\"version\": \"0.1.0\", \"time\": \"t\", \"listener\": {\"warning\": null}}");
        assertThat(StatusScreen.render("u", status, JSON.readTree("{\"alerts\": []}"), Signals.EMPTY)).doesNotContain("WARNING");
    }
}
