package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.TestCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent whose listener and proxy are exposed (bound to every address, so TLS and basic auth guard both), run by
 * the release launcher inside a network namespace of its own ({@code unshare -rn}: nothing in it but a loopback
 * interface, so "every address" reaches no network). The basic-auth users are dropped from the web config while it
 * runs: the edit is refused and logged as an error, and both listeners keep asking for credentials. The proxy's 25
 * refused (401) requests of a lane with an SLO are counted as rejected and enter no window.
 */
@EnabledOnOs(OS.LINUX)
class ExposedListenerIT {
    @TempDir
    Path dir;

    /** Whether this host lets an unprivileged user make a network namespace; required when CI says so. */
    private static void requireNetworkNamespace() throws Exception {
        Process p = new ProcessBuilder("unshare", "-rn", "true").redirectErrorStream(true).start();
        boolean ok = p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        if (!ok && "1".equals(System.getenv("TAILWATCH_REQUIRE_NETNS"))) {
            throw new AssertionError("unshare -rn is required (TAILWATCH_REQUIRE_NETNS=1) but does not work here");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(ok, "this host does not allow unshare -rn (a network namespace)");
    }

    @Test
    void droppingBasicAuthFromAnExposedListenerIsRefusedLiveAndRefusedRequestsAreNeverMetered() throws Exception {
        requireNetworkNamespace();
        TestCerts.ca(dir, "ca");
        TestCerts.leaf(dir, "ca", "agent", "ec");
        String hash = TestCerts.bcrypt("pw");
        String tls = "tls_server_config: {cert_file: " + dir.resolve("agent.crt") + ", key_file: " + dir.resolve("agent.key") + "}\n";
        Path web = dir.resolve("web.yml");
        Files.writeString(web, tls + "basic_auth_users:\n  prometheus: '" + hash + "'\n");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server:\n  listen: 0.0.0.0:9531\n  web_config_file: " + web + "\n"
                + "host:\n  interval: 1s\nengines:\n"
                + "  - name: e\n    api: openai\n    url: http://127.0.0.1:9\n    scenarios: []\n"
                + "    health:\n      interval: 1h\n    signals:\n      source: none\n"
                + "    proxy:\n      listen: 0.0.0.0:9532\n      lanes:\n"
                + "        - name: interactive\n          header: {name: X-Lane, value: i}\n"
                + "          slo: {ttft_p95: 5s, e2e_p95: 30s, target: 0.95}\n"
                + "rules:\n  LaneGoodputLow: {for: 1s}\n");
        Path launcher = AgentProcess.shippedLauncher(dir);
        Path script = dir.resolve("exposed.sh");
        // The waits below poll for a state; every check of the product is asserted in Java on what the script prints.
        Files.writeString(script, """
                set -u
                ip link set lo up
                export JAVA_HOME="$1" TAILWATCH_DATA_DIR="$2/data"
                "$3" run -c "$4" >"$2/agent.out" 2>"$2/agent.err" &
                pid=$!
                trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
                code() { curl -sk -o /dev/null -w '%{http_code}' -m 20 "$@"; }
                proxy() { code -X POST -H 'X-Lane: i' -H 'Content-Type: application/json' -d '{}' https://127.0.0.1:9532/v1/chat/completions "$@"; }
                for i in $(seq 1 600); do
                  [ "$(code https://127.0.0.1:9531/healthz)" = 200 ] && [ "$(proxy)" = 401 ] && break
                  kill -0 $pid 2>/dev/null || { echo "exited"; exit 1; }
                  sleep 0.2
                done
                echo "agent-anonymous $(code https://127.0.0.1:9531/metrics)"
                echo "agent-signed-in $(code -u prometheus:pw https://127.0.0.1:9531/metrics)"
                for i in $(seq 1 24); do echo "proxy-anonymous $(proxy)"; done
                echo "proxy-wrong-password $(proxy -u prometheus:wrong)"
                printf '%s' "$5" >"$6.tmp" && mv "$6.tmp" "$6"
                for i in $(seq 1 300); do grep -q 'changed but is refused' "$2/agent.err" && break; sleep 0.1; done
                echo "after-edit-agent-anonymous $(code https://127.0.0.1:9531/metrics)"
                echo "after-edit-proxy-anonymous $(proxy)"
                for i in $(seq 1 200); do
                  curl -sk -m 20 -u prometheus:pw https://127.0.0.1:9531/metrics | grep -Eq 'outcome="rejected"} 27(\\.0)?$' && break
                  sleep 0.1
                done
                curl -sk -m 20 -u prometheus:pw https://127.0.0.1:9531/metrics >"$2/metrics.txt"
                curl -sk -m 20 -u prometheus:pw https://127.0.0.1:9531/api/v1/alerts >"$2/alerts.json"
                """);
        Process p = new ProcessBuilder("unshare", "-rn", "sh", script.toString(), System.getProperty("java.home"),
                dir.toString(), launcher.toString(), config.toString(), tls, web.toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("the script finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        String err = Files.readString(dir.resolve("agent.err"));
        assertThat(out).as(err).doesNotContain("exited").contains("agent-anonymous 401", "agent-signed-in 200");
        assertThat(out.lines().filter(l -> l.startsWith("proxy-anonymous ")).toList()).hasSize(24)
                .allMatch(l -> l.equals("proxy-anonymous 401"));
        assertThat(out).contains("proxy-wrong-password 401");

        assertThat(err).as("the edit is refused, loudly").containsPattern("ERROR.*web config .* changed but is refused");
        assertThat(out).as("both listeners still ask for credentials")
                .contains("after-edit-agent-anonymous 401", "after-edit-proxy-anonymous 401");

        String metrics = Files.readString(dir.resolve("metrics.txt"));
        String requests = ProxyMetrics.REQUESTS.prometheusName();
        assertThat(metrics.lines().filter(l -> l.startsWith(requests + "{") && l.contains("tailwatch_lane=\"interactive\"")
                && l.contains("tailwatch_proxy_outcome=\"rejected\"")).toList())
                .as("1 while waiting for the start, 24 anonymous, 1 wrong password, 1 after the edit: counted, as rejected")
                .hasSize(1).allMatch(l -> l.matches(".* 27(\\.0)?"));
        String window = ProxyMetrics.LANE_WINDOW_REQUESTS.prometheusName();
        assertThat(metrics.lines().filter(l -> l.startsWith(window + "{")).toList()).as("nothing in the lane's window")
                .allMatch(l -> l.matches(".* 0(\\.0)?"));
        assertThat(metrics).as("no goodput without a request metered")
                .doesNotContain(ProxyMetrics.LANE_WINDOW_GOODPUT.prometheusName() + "{");
        assertThat(Files.readString(dir.resolve("alerts.json"))).contains("\"alerts\"").doesNotContain("LaneGoodputLow");
    }
}
